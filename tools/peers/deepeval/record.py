"""Records what DeepEval's own ToolCorrectnessMetric returns on generated
cases (see ../README.md).

    DEEPEVAL_SRC=<checkout> DEEPEVAL_STUBS=<scratch dir> PYTHONHASHSEED=0 \\
        python3 tools/peers/deepeval/record.py cases.json > out.json

DEEPEVAL_SRC is a checkout of confident-ai/deepeval (the directory holding
the deepeval package), outside this project. The metric, the test case and
ToolCall classes, check_llm_test_case_params and the base metric run from
it unchanged. Only infrastructure is stubbed: telemetry, the progress
indicator, model providers, and the package
__init__ files that import every metric and provider. The stubs are written
to DEEPEVAL_STUBS (a scratch directory) by write_stubs below, and imported
from there ahead of the checkout.
"""

import json
import os
import sys
import textwrap

# Stub modules: name -> source. Each stands in for infrastructure that the
# deterministic metric never uses.
STUBS = {
    # The package __init__ imports telemetry, tracing, the CLI and every
    # integration; the stub only makes deepeval a package of the checkout.
    "deepeval/__init__.py": """
        import os
        __path__ = [os.path.dirname(__file__), os.path.join(os.environ["DEEPEVAL_SRC"], "deepeval")]
        __version__ = "stub"
    """,
    # deepeval.metrics imports every metric; the stub makes it the checkout's
    # package and re-exports the base classes, as the real one does first.
    "deepeval/metrics/__init__.py": """
        import os
        __path__ = [os.path.dirname(__file__), os.path.join(os.environ["DEEPEVAL_SRC"], "deepeval", "metrics")]
        from deepeval.metrics.base_metric import BaseMetric, BaseConversationalMetric, BaseArenaMetric
    """,
    # Progress bars and telemetry around measure().
    "deepeval/metrics/indicator.py": """
        from contextlib import contextmanager
        @contextmanager
        def metric_progress_indicator(*args, **kwargs):
            yield
    """,
    "deepeval/telemetry.py": """
        def capture_metric_type(*a, **k):
            from contextlib import nullcontext
            return nullcontext()
        def record_metric(*a, **k):
            pass
    """,
    # Model providers: initialize_model(None) would build the default OpenAI
    # model; the metric uses a model only for the LLM tool-selection step,
    # which the recorded cases never enable (no available_tools).
    "deepeval/models/__init__.py": """
        class DeepEvalBaseLLM:
            def get_model_name(self):
                return "stub"
        class _Provider(DeepEvalBaseLLM):
            def __init__(self, *a, **k):
                pass
        OpenAIModel = AnthropicModel = AzureOpenAIModel = OllamaModel = LocalModel = _Provider
        OpenAIEmbeddingModel = AzureOpenAIEmbeddingModel = OllamaEmbeddingModel = LocalEmbeddingModel = _Provider
        GeminiModel = AmazonBedrockModel = LiteLLMModel = PortkeyModel = KimiModel = GrokModel = _Provider
        DeepSeekModel = OpenRouterModel = _Provider
        import os
        __path__ = [os.path.dirname(__file__), os.path.join(os.environ["DEEPEVAL_SRC"], "deepeval", "models")]
    """,
    "deepeval/models/base_model.py": """
        from deepeval.models import DeepEvalBaseLLM
        class DeepEvalBaseEmbeddingModel:
            pass
    """,
    "deepeval/models/llms/__init__.py": """
        import os
        __path__ = [os.path.dirname(__file__), os.path.join(os.environ["DEEPEVAL_SRC"], "deepeval", "models", "llms")]
    """,
    "deepeval/models/llms/constants.py": """
        OPENAI_MODELS_DATA = GEMINI_MODELS_DATA = OLLAMA_MODELS_DATA = {}
        ANTHROPIC_MODELS_DATA = GROK_MODELS_DATA = KIMI_MODELS_DATA = {}
    """,
}

# Third-party packages deepeval imports at module level for infrastructure
# the metric does not use: the console UI (progress bars, colours), the
# Confident AI platform's HTTP client and its retries, and the OpenAI SDK
# (a model provider). Any attribute of them is a dummy class.
THIRD_PARTY = ["tqdm", "rich", "rich.progress", "rich.console", "rich.table", "rich.theme", "rich.markup", "nest_asyncio",
               "aiohttp", "tenacity", "openai"]
THIRD_PARTY_STUB = """
    class _Dummy:
        def __init__(self, *a, **k):
            pass
        def __call__(self, *a, **k):
            return self
        def __getattr__(self, name):
            return _Dummy()
    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Dummy
"""
for _pkg in THIRD_PARTY:
    _parts = _pkg.split(".")
    STUBS["/".join(_parts) + "/__init__.py"] = THIRD_PARTY_STUB


def write_stubs(root):
    for rel, src in STUBS.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(textwrap.dedent(src).lstrip())


def setup():
    src, stubs = os.environ.get("DEEPEVAL_SRC"), os.environ.get("DEEPEVAL_STUBS")
    if not src or not stubs:
        sys.exit("set DEEPEVAL_SRC (a deepeval checkout) and DEEPEVAL_STUBS (a scratch directory)")
    write_stubs(stubs)
    sys.path[:0] = [stubs, src]


setup()

from deepeval.metrics.tool_correctness.tool_correctness import ToolCorrectnessMetric  # noqa: E402
from deepeval.test_case import LLMTestCase, ToolCall, ToolCallParams, ToolCallType  # noqa: E402


def tool_call(c):
    kw = {"name": c["name"], "type": ToolCallType[c.get("type", "FUNCTION")]}
    if "args" in c:
        kw["input_parameters"] = c["args"]
    if "output" in c:
        kw["output"] = c["output"]
    return ToolCall(**kw)


def metric(options):
    kw = dict(options)
    if "evaluation_params" in kw:
        kw["evaluation_params"] = [ToolCallParams(p) for p in kw["evaluation_params"]]
    return ToolCorrectnessMetric(**kw)


def record(c):
    rec = dict(c)
    try:
        m = metric(c["options"])
        case = LLMTestCase(
            input=c["input"],
            tools_called=[tool_call(a) for a in c["actual_calls"]],
            expected_tools=[tool_call(e) for e in c["expected_calls"]],
        )
        m.measure(case)
        rec["score"] = m.score
        rec["success"] = m.success
        rec["reason"] = m.reason
    except Exception as e:  # the peer's own error
        rec["error"] = "%s: %s" % (type(e).__name__, e)
    return rec


def main():
    with open(sys.argv[1]) as f:
        data = json.load(f)
    data["cases"] = [record(c) for c in data["cases"]]
    json.dump(data, sys.stdout, ensure_ascii=False, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
