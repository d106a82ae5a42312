# Builds constructed OTLP/JSON captures for conventions without a real
# capture here, following genai-conventions.md (shapes, attribute names,
# encodings). Spans are listed child-first, as exporters send them.
import json, hashlib

T0 = 1795300000000000000

def sid(name):
    return hashlib.sha1(name.encode()).hexdigest()[:16]

def tid(name):
    return hashlib.sha1(name.encode()).hexdigest()[:32]

def attr(k, v):
    if isinstance(v, bool):
        return {"key": k, "value": {"boolValue": v}}
    if isinstance(v, int):
        return {"key": k, "value": {"intValue": str(v)}}
    return {"key": k, "value": {"stringValue": v}}

def span(trace, name, sp, parent, start_ms, end_ms, attrs, kind=1, error=None):
    s = {"traceId": trace, "spanId": sid(sp), "name": name, "kind": kind,
         "startTimeUnixNano": str(T0 + start_ms * 1000000),
         "endTimeUnixNano": str(T0 + end_ms * 1000000),
         "attributes": [attr(k, v) for k, v in attrs], "status": {}}
    if parent:
        s["parentSpanId"] = sid(parent)
    if error:
        s["status"] = {"code": 2, "message": error}
    return s

def doc(service, lang, scope, version, spans):
    return {"resourceSpans": [{"resource": {"attributes": [attr("service.name", service), attr("telemetry.sdk.language", lang)]},
            "scopeSpans": [{"scope": {"name": scope, "version": version}, "spans": spans}]}]}

# 1. LangGraph ReAct agent (create_react_agent) under OpenInference Python:
# the graph root is a CHAIN, the "agent" model node is marked AGENT (its
# name contains "agent") and the tools run in the sibling "tools" CHAIN node.
t = tid("langgraph")
meta = lambda step, node: json.dumps({"langgraph_step": step, "langgraph_node": node, "langgraph_triggers": ["branch:to:" + node], "langgraph_path": ["__pregel_pull", node], "thread_id": "t-1"})
lg = [
    span(t, "ChatOpenAI", "lg-llm1", "lg-agent1", 10, 900, [("openinference.span.kind", "LLM"), ("llm.model_name", "gpt-4o-mini"),
        ("llm.output_messages.0.message.role", "assistant"),
        ("llm.output_messages.0.message.tool_calls.0.tool_call.function.name", "get_weather"),
        ("llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments", '{"city": "Paris", "unit": "celsius"}'),
        ("llm.output_messages.0.message.tool_calls.1.tool_call.function.name", "lookup_stock"),
        ("llm.output_messages.0.message.tool_calls.1.tool_call.function.arguments", '{"symbol": "ZZZZ"}')]),
    span(t, "agent", "lg-agent1", "lg-root", 5, 905, [("openinference.span.kind", "AGENT"), ("metadata", meta(1, "agent")),
        ("input.value", '{"messages": [["user", "What is the weather in Paris, and the price of ZZZZ?"]]}'), ("input.mime_type", "application/json")]),
    span(t, "get_weather", "lg-tool1", "lg-tools", 910, 960, [("openinference.span.kind", "TOOL"), ("tool.name", "get_weather"),
        ("tool.description", "Get the weather for a city."), ("input.value", "{'city': 'Paris', 'unit': 'celsius'}"), ("input.mime_type", "application/json"),
        ("output.value", "21C and sunny"), ("metadata", meta(2, "tools"))]),
    span(t, "lookup_stock", "lg-tool2", "lg-tools", 911, 930, [("openinference.span.kind", "TOOL"), ("tool.name", "lookup_stock"),
        ("tool.description", "Look up a stock price."), ("input.value", "{'symbol': 'ZZZZ'}"), ("input.mime_type", "application/json"),
        ("exception.type", "ValueError"), ("metadata", meta(2, "tools"))], error="ValueError: unknown symbol ZZZZ"),
    span(t, "tools", "lg-tools", "lg-root", 906, 965, [("openinference.span.kind", "CHAIN"), ("metadata", meta(2, "tools"))]),
    span(t, "ChatOpenAI", "lg-llm2", "lg-agent2", 970, 1500, [("openinference.span.kind", "LLM"), ("llm.model_name", "gpt-4o-mini"),
        ("llm.output_messages.0.message.role", "assistant"), ("llm.output_messages.0.message.content", "It is 21C in Paris; the stock lookup failed.")]),
    span(t, "agent", "lg-agent2", "lg-root", 966, 1505, [("openinference.span.kind", "AGENT"), ("metadata", meta(3, "agent"))]),
    span(t, "LangGraph", "lg-root", None, 0, 1510, [("openinference.span.kind", "CHAIN"),
        ("input.value", '{"messages": [["user", "What is the weather in Paris, and the price of ZZZZ?"]]}'), ("input.mime_type", "application/json"),
        ("output.value", "It is 21C in Paris; the stock lookup failed.")]),
]
json.dump(doc("langgraph-openinference", "python", "openinference.instrumentation.langchain", "0.1.50", lg),
          open("constructed-langgraph-openinference.json", "w"), indent=1)

# 2. LangChain agent under OpenLLMetry Python >= 0.53 (genai-conventions
# §4.3): tool spans "execute_tool {name}" whose gen_ai.tool.call.arguments
# and traceloop.entity.input are the {"input_str","tags","metadata",
# "inputs","kwargs"} wrapper and whose result is {"output","kwargs"}; agent
# and workflow spans both carry invoke_agent.
t = tid("openllmetry-python")
def wrapper(repr_, inputs):
    return json.dumps({"input_str": repr_, "tags": ["seq:step:2"], "metadata": {"langgraph_node": "tools"}, "inputs": inputs, "kwargs": {}})
ol = [
    span(t, "execute_tool get_weather", "ol-tool1", "ol-agent", 910, 960, [("gen_ai.operation.name", "execute_tool"), ("gen_ai.provider.name", "langchain"),
        ("gen_ai.tool.name", "get_weather"), ("gen_ai.tool.type", "function"), ("gen_ai.tool.description", "Get the weather for a city."),
        ("traceloop.span.kind", "task"), ("traceloop.entity.name", "get_weather"), ("traceloop.workflow.name", "weather_agent"),
        ("gen_ai.tool.call.arguments", wrapper("{'city': 'Paris', 'unit': 'celsius'}", {"city": "Paris", "unit": "celsius"})),
        ("traceloop.entity.input", wrapper("{'city': 'Paris', 'unit': 'celsius'}", {"city": "Paris", "unit": "celsius"})),
        ("gen_ai.tool.call.result", json.dumps({"output": "21C and sunny", "kwargs": {"name": "get_weather"}})),
        ("traceloop.entity.output", json.dumps({"output": "21C and sunny", "kwargs": {"name": "get_weather"}}))]),
    span(t, "execute_tool lookup_stock", "ol-tool2", "ol-agent", 911, 930, [("gen_ai.operation.name", "execute_tool"), ("gen_ai.provider.name", "langchain"),
        ("gen_ai.tool.name", "lookup_stock"), ("gen_ai.tool.type", "function"),
        ("traceloop.span.kind", "task"), ("traceloop.entity.name", "lookup_stock"), ("traceloop.workflow.name", "weather_agent"),
        ("gen_ai.tool.call.arguments", wrapper("{'symbol': 'ZZZZ'}", {"symbol": "ZZZZ"})),
        ("traceloop.entity.input", wrapper("{'symbol': 'ZZZZ'}", {"symbol": "ZZZZ"})),
        ("error.type", "ValueError")], error="unknown symbol ZZZZ"),
    span(t, "chat gpt-4o-mini", "ol-llm", "ol-agent", 10, 900, [("gen_ai.operation.name", "chat"), ("gen_ai.provider.name", "openai"), ("gen_ai.request.model", "gpt-4o-mini")], kind=3),
    span(t, "weather_agent.agent", "ol-agent", "ol-wf", 5, 1500, [("gen_ai.operation.name", "invoke_agent"), ("gen_ai.agent.name", "weather_agent"),
        ("gen_ai.provider.name", "langchain"), ("traceloop.span.kind", "agent"), ("traceloop.entity.name", "weather_agent"), ("traceloop.workflow.name", "weather_agent")]),
    span(t, "LangGraph.workflow", "ol-wf", None, 0, 1510, [("gen_ai.operation.name", "invoke_agent"), ("gen_ai.agent.name", "LangGraph"),
        ("gen_ai.provider.name", "langgraph"), ("traceloop.span.kind", "workflow"), ("traceloop.entity.name", "LangGraph"), ("traceloop.workflow.name", "weather_agent")]),
]
json.dump(doc("openllmetry-langchain-python", "python", "opentelemetry.instrumentation.langchain", "0.53.0", ol),
          open("constructed-openllmetry-langchain-python.json", "w"), indent=1)

# 3. Google ADK Python, 2025 span names (genai-conventions §6.1):
# invocation -> agent_run [name] (no attributes) -> call_llm ->
# execute_tool {tool}; arguments in gcp.vertex.agent.tool_call_args, the
# response wrapped {"result": ...} for scalars.
t = tid("adk-2025")
ad = [
    span(t, "execute_tool get_weather", "ad-tool1", "ad-llm", 910, 960, [("gen_ai.system", "gcp.vertex.agent"), ("gen_ai.operation.name", "execute_tool"),
        ("gen_ai.tool.name", "get_weather"), ("gen_ai.tool.description", "Get the weather for a city."), ("gen_ai.tool.call.id", "adk-5f0c8a51-97a4-4f0e-a1d1-0b8f0c1c2d3e"),
        ("gcp.vertex.agent.tool_call_args", '{"city": "Paris", "unit": "celsius"}'), ("gcp.vertex.agent.event_id", "e1"),
        ("gcp.vertex.agent.tool_response", '{"result": "21C and sunny"}'), ("gcp.vertex.agent.llm_request", "{}"), ("gcp.vertex.agent.llm_response", "{}")]),
    span(t, "execute_tool lookup_stock", "ad-tool2", "ad-llm", 911, 930, [("gen_ai.system", "gcp.vertex.agent"), ("gen_ai.operation.name", "execute_tool"),
        ("gen_ai.tool.name", "lookup_stock"), ("gen_ai.tool.call.id", "adk-8c1d2e3f-1111-4a2b-9c3d-4e5f6a7b8c9d"),
        ("gcp.vertex.agent.tool_call_args", '{"symbol": "ZZZZ"}'), ("gcp.vertex.agent.event_id", "e2"),
        ("gcp.vertex.agent.llm_request", "{}"), ("gcp.vertex.agent.llm_response", "{}")], error="ValueError: unknown symbol ZZZZ"),
    span(t, "call_llm", "ad-llm", "ad-agent", 10, 965, [("gen_ai.system", "gcp.vertex.agent"), ("gen_ai.request.model", "gemini-2.0-flash"),
        ("gcp.vertex.agent.invocation_id", "e-1"), ("gcp.vertex.agent.llm_request", '{"model": "gemini-2.0-flash"}')]),
    span(t, "call_llm", "ad-llm2", "ad-agent", 970, 1500, [("gen_ai.system", "gcp.vertex.agent"), ("gen_ai.request.model", "gemini-2.0-flash"),
        ("gcp.vertex.agent.invocation_id", "e-1")]),
    span(t, "agent_run [weather_agent]", "ad-agent", "ad-inv", 5, 1505, []),
    span(t, "invocation", "ad-inv", None, 0, 1510, []),
]
json.dump(doc("adk-python-2025", "python", "gcp.vertex.agent", "1.4.2", ad),
          open("constructed-google-adk-python-2025.json", "w"), indent=1)

# 4. Spring AI 1.1 with two model turns: the model asks for get_weather,
# then, after a second model call, for lookup_stock. Every span hangs off
# the advisor "call" span, so only the chat spans between the tool calls
# tell the turns apart. Built from constructed-spring-ai.json.
src = json.load(open("constructed-spring-ai.json"))
spans = src["resourceSpans"][0]["scopeSpans"][0]["spans"]
by_name = {s["name"] + ("#2" if s["name"] == "chat gpt-4o-mini" and any(
    x["name"] == s["name"] and x["startTimeUnixNano"] < s["startTimeUnixNano"] for x in spans) else ""): s for s in spans}
t = tid("spring-two-turns")
def moved(s, start, end):
    s = json.loads(json.dumps(s))
    s["traceId"] = t
    s["spanId"] = sid("spring2-" + s["spanId"])
    if s.get("parentSpanId"):
        s["parentSpanId"] = sid("spring2-" + s["parentSpanId"])
    base = int(spans[-1]["startTimeUnixNano"])
    s["startTimeUnixNano"], s["endTimeUnixNano"] = str(base + start * 1000000), str(base + end * 1000000)
    return s
chat1, chat3 = by_name["chat gpt-4o-mini"], by_name["chat gpt-4o-mini#2"]
chat2 = json.loads(json.dumps(chat1))
chat2["spanId"] = "5e5e5e5e5e5e5e5e"
for a in chat2["attributes"]:
    if a["key"] == "gen_ai.response.id":
        a["value"]["stringValue"] = "chatcmpl-turn2"
two = [
    moved(chat1, 5, 1300),
    moved(by_name["tool_call get_weather"], 1301, 1310),
    moved(chat2, 1311, 2100),
    moved(by_name["tool_call lookup_stock"], 2101, 2105),
    moved(chat3, 2106, 2900),
    moved(by_name["call"], 4, 2901),
    moved(by_name["spring_ai chat_client"], 3, 2902),
    moved(by_name["http post /chat"], 0, 2910),
]
src["resourceSpans"][0]["scopeSpans"][0]["spans"] = two
json.dump(src, open("constructed-spring-ai-two-turns.json", "w"), indent=1)

# 5. ADK Python (schema v2) whose two tools are plain functions: ADK gathers
# the calls of one model response, but a sync tool runs to its end before
# the next one starts, so the two execute_tool spans do not overlap. Only
# the call_llm spans beside them tell that one response asked for both.
# Built from constructed-google-adk-python.json.
src = json.loads(open("constructed-google-adk-python.json").readline())
spans = src["resourceSpans"][0]["scopeSpans"][0]["spans"]
t = tid("adk-python-sequential")
times = {"execute_tool get_weather": (1795244401350213579, 1795244401354013579),
         "execute_tool lookup_stock": (1795244401354513579, 1795244401357013579)}
for s in spans:
    s["traceId"] = t
    if s["name"] in times:
        start, end = times[s["name"]]
        s["startTimeUnixNano"], s["endTimeUnixNano"] = str(start), str(end)
json.dump(src, open("constructed-google-adk-python-sequential.json", "w"), indent=1)
