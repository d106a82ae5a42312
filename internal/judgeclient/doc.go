// Package judgeclient asks an LLM judge over the OpenAI chat-completions API. Its
// [Client] implements [toolcall.Completer] for OpenAI, Azure OpenAI and every
// OpenAI-compatible server (vLLM, Ollama, llama.cpp, LiteLLM, gateways).
//
// # Why not openai-go
//
// The client is a small typed client over the collector's own HTTP client
// block, go.opentelemetry.io/collector/config/confighttp, not the
// github.com/openai/openai-go SDK:
//   - contrib components talk to HTTP services through confighttp, so users
//     configure TLS, proxy, headers, timeouts, compression and authenticator
//     extensions (e.g. Entra ID or OAuth2 tokens) the way they do for every
//     exporter, and the calls get the collector's otelhttp telemetry;
//   - a collector distribution already links confighttp (the OTLP/HTTP
//     receiver and exporter), so the judge adds only its own code, while the
//     SDK adds its whole generated API surface for the one endpoint we use,
//     with a second set of options, retries and middleware to configure.
//
// # Binary size
//
// Measured with go1.26.8 linux/amd64 and ocb's flags (go build -trimpath
// -ldflags="-s -w"), on mains that link this processor's factory and, where
// said, send one chat request:
//
//	processor factory alone                          13,665,728 B
//	  + judge (NewClientFromHost, Complete)          26,603,968 B  +12.9 MB: confighttp's closure
//	processor + otlphttpexporter v0.161.0            27,949,920 B
//	  + judge                                        28,015,648 B  +66 KB
//	  + openai-go v3.98.0 instead (Chat.Completions) 48,243,456 B  +20.3 MB
//
// Our distribution (builder-config.yaml) has the OTLP receiver and the
// OTLP/HTTP exporter, so confighttp is already linked and the judge costs
// about 66 KB; openai-go would cost about 20 MB.
//
// # Wire format
//
// The request is {model, messages, temperature, top_p, max_tokens,
// response_format: {"type": "json_object"}}, unset parameters omitted so the
// server's defaults apply. It sends max_tokens rather than
// max_completion_tokens: OpenAI-compatible servers (vLLM, Ollama, llama.cpp,
// LiteLLM) and Azure api-versions accept max_tokens, while
// max_completion_tokens is OpenAI's newer name that some compatible servers
// and older Azure api-versions do not know. OpenAI's reasoning models reject
// max_tokens; leave MaxTokens at 0 for them. The answer read is
// choices[0].message.content (a refusal or a missing content is an error),
// finish_reason, model and usage.prompt_tokens/completion_tokens.
//
// # Retries and secrets
//
// Failed attempts are retried on 429, 5xx, transport errors and attempts
// that hit request_timeout, with full-jitter exponential backoff or the
// server's Retry-After / retry-after-ms, and never past the caller's
// deadline. Returned errors are [*Error], whose text is built from parts
// that hold no secret and is scrubbed of the API key, header values and URL
// credentials besides; logs are at debug level and carry neither headers
// nor bodies.
//
// Package
// [github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/judgeclient/judgetest]
// is a scripted chat-completions server for tests.
package judgeclient // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/judgeclient"
