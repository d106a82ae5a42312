package judgeclient

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/confmap"
)

// Defaults applied by [NewDefaultConfig] (and, for a zero RequestTimeout,
// InitialBackoff or MaxBackoff, by [NewClient]).
const (
	DefaultRequestTimeout = 30 * time.Second
	DefaultMaxRetries     = 3
	DefaultInitialBackoff = 500 * time.Millisecond
	DefaultMaxBackoff     = 10 * time.Second
)

// Config is the YAML shape of a judge: where it is, how to authenticate, and
// how hard to try.
//
//	endpoint: https://api.openai.com/v1      # OpenAI style: POST {endpoint}/chat/completions
//	model: gpt-4o-mini
//	api_key: ${env:OPENAI_API_KEY}
//	request_timeout: 30s
//	max_retries: 3
//	redact:
//	  - pattern: '\b\d{16}\b'
//	    replacement: '[card]'
//
// With api_version set the judge is Azure OpenAI: endpoint is the resource
// (https://NAME.openai.azure.com), model is the deployment name, the URL is
// {endpoint}/openai/deployments/{model}/chat/completions?api-version={api_version}
// and the key goes in an api-key header instead of Authorization: Bearer.
type Config struct {
	// ClientConfig is the collector's usual HTTP client block, squashed:
	// endpoint, headers, tls, auth (an authenticator extension, e.g. for
	// Entra ID tokens), proxy_url, timeout, compression, keepalive. Its
	// timeout bounds each HTTP exchange like request_timeout does; the
	// smaller one wins. It is a named field, not an embedded one, on purpose:
	// confighttp.ClientConfig has its own Unmarshal, which embedding would
	// promote onto Config and which would then decode only its own keys.
	ClientConfig confighttp.ClientConfig `mapstructure:",squash"`

	// Model is sent as the request's model; with api_version it is also the
	// Azure deployment name in the URL. Required.
	Model string `mapstructure:"model"`

	// APIKey is sent as "Authorization: Bearer <key>", or as the api-key
	// header when api_version is set. Empty sends no key (a local server, or
	// auth handled by the auth extension or headers).
	APIKey configopaque.String `mapstructure:"api_key"`

	// APIVersion selects Azure OpenAI and is sent as the api-version query
	// parameter (e.g. "2024-10-21"). Empty: OpenAI style.
	APIVersion string `mapstructure:"api_version"`

	// RequestTimeout bounds each attempt, from sending the request to reading
	// the whole answer; the caller's context bounds all attempts together.
	// Default 30s; 0 means the default.
	RequestTimeout time.Duration `mapstructure:"request_timeout"`

	// MaxRetries is how many times a failed attempt is retried (so at most
	// MaxRetries+1 requests): on 429, 5xx, transport errors and attempts that
	// hit request_timeout, never past the caller's deadline. Default 3; 0
	// sends one request only.
	MaxRetries int `mapstructure:"max_retries"`

	// InitialBackoff and MaxBackoff shape the wait between attempts: retry n
	// (from 0) waits a uniformly random time in [0, min(MaxBackoff,
	// InitialBackoff*2^n)] ("full jitter"), unless the server said how long
	// with Retry-After or retry-after-ms. Defaults 500ms and 10s; 0 means
	// the default.
	InitialBackoff time.Duration `mapstructure:"initial_backoff"`
	MaxBackoff     time.Duration `mapstructure:"max_backoff"`

	// Redact rewrites every message's content before anything is sent, in
	// order: each pattern's matches are replaced by its replacement.
	Redact []RedactConfig `mapstructure:"redact"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// RedactConfig is one rewrite applied to message contents before sending.
type RedactConfig struct {
	// Pattern is an RE2 regular expression (Go regexp syntax). Required.
	Pattern string `mapstructure:"pattern"`
	// Replacement replaces each match; $1 or ${name} expand to submatches
	// (regexp.ReplaceAllString). Empty deletes the match.
	Replacement string `mapstructure:"replacement"`
}

var (
	_ confmap.Validator   = (*Config)(nil)
	_ confmap.Unmarshaler = (*Config)(nil)
)

// configKeys are the keys a Config accepts at its top level: its own and
// those of the squashed HTTP client block.
var configKeys = mapstructureKeys(reflect.TypeFor[Config]())

// Unmarshal decodes conf as confmap does, but first rejects keys that
// neither Config nor the HTTP client block knows. confmap does not: because
// confighttp.ClientConfig has its own Unmarshal, confmap decodes a struct
// that squashes it with unused keys ignored (confmap v1.67.0), so a typo
// such as max_retires would otherwise be silently dropped.
func (cfg *Config) Unmarshal(conf *confmap.Conf) error {
	var unknown []string
	for k := range conf.ToStringMap() {
		if !configKeys[strings.ToLower(k)] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return fmt.Errorf("invalid keys: %s", strings.Join(unknown, ", "))
	}
	return conf.Unmarshal(cfg)
}

// mapstructureKeys lists the mapstructure keys of struct type t, descending
// into squashed fields.
func mapstructureKeys(t reflect.Type) map[string]bool {
	keys := map[string]bool{}
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("mapstructure"), ",")
		if slices.Contains(strings.Split(opts, ","), "squash") {
			maps.Copy(keys, mapstructureKeys(f.Type))
			continue
		}
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		keys[strings.ToLower(name)] = true
	}
	return keys
}

// NewDefaultConfig returns a Config with every default set; Model and the
// endpoint are left for the user.
func NewDefaultConfig() Config {
	return Config{
		ClientConfig:   confighttp.NewDefaultClientConfig(),
		RequestTimeout: DefaultRequestTimeout,
		MaxRetries:     DefaultMaxRetries,
		InitialBackoff: DefaultInitialBackoff,
		MaxBackoff:     DefaultMaxBackoff,
	}
}

// Validate reports every mistake, each naming its key. The squashed HTTP
// client block is checked by its own Validate, which confmap.Validate calls
// separately.
func (cfg *Config) Validate() error {
	var errs []error
	if cfg.ClientConfig.Endpoint == "" {
		errs = append(errs, errors.New("endpoint: must not be empty"))
	} else if err := ValidateEndpoint(cfg.ClientConfig.Endpoint); err != nil {
		errs = append(errs, fmt.Errorf("endpoint: %w", err))
	}
	if cfg.Model == "" {
		errs = append(errs, errors.New("model: must not be empty"))
	}
	if cfg.RequestTimeout < 0 {
		errs = append(errs, fmt.Errorf("request_timeout: must not be negative, got %s", cfg.RequestTimeout))
	}
	for _, d := range []struct {
		key string
		d   time.Duration
	}{{"timeout", cfg.ClientConfig.Timeout}, {"request_timeout", cfg.RequestTimeout}, {"initial_backoff", cfg.InitialBackoff}, {"max_backoff", cfg.MaxBackoff}} {
		if err := CheckDurationUnit(d.key, d.d); err != nil {
			errs = append(errs, err)
		}
	}
	if cfg.MaxRetries < 0 {
		errs = append(errs, fmt.Errorf("max_retries: must not be negative, got %d", cfg.MaxRetries))
	}
	if cfg.InitialBackoff < 0 {
		errs = append(errs, fmt.Errorf("initial_backoff: must not be negative, got %s", cfg.InitialBackoff))
	}
	if cfg.MaxBackoff < 0 {
		errs = append(errs, fmt.Errorf("max_backoff: must not be negative, got %s", cfg.MaxBackoff))
	}
	if cfg.InitialBackoff > 0 && cfg.MaxBackoff > 0 && cfg.InitialBackoff > cfg.MaxBackoff {
		errs = append(errs, fmt.Errorf("initial_backoff: %s is more than max_backoff %s", cfg.InitialBackoff, cfg.MaxBackoff))
	}
	for i, r := range cfg.Redact {
		if r.Pattern == "" {
			errs = append(errs, fmt.Errorf("redact[%d].pattern: must not be empty", i))
			continue
		}
		if _, err := regexp.Compile(r.Pattern); err != nil {
			errs = append(errs, fmt.Errorf("redact[%d].pattern: %w", i, err))
		}
	}
	return errors.Join(errs...)
}

// CheckDurationUnit rejects a positive duration under a millisecond, which
// no setting of the judge or the processor means: it comes from a number
// written without a unit, which the collector's configuration reads as
// nanoseconds (wait: 5 is 5ns).
func CheckDurationUnit(key string, d time.Duration) error {
	if d > 0 && d < time.Millisecond {
		return fmt.Errorf("%s: %v is less than a millisecond: a number without a unit is read as nanoseconds; write the unit (%ds, %dms)", key, d, d.Nanoseconds(), d.Nanoseconds())
	}
	return nil
}

// ValidateEndpoint checks that the endpoint is an absolute http(s) URL. Its
// text is never quoted back: it may carry credentials.
func ValidateEndpoint(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil {
		return errors.New("not a valid URL")
	}
	if u.Scheme == "" {
		return errors.New("must start with http:// or https://")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("scheme must be http or https, got %q", u.Scheme)
	}
	if u.Host == "" {
		return errors.New("has no host")
	}
	if u.Fragment != "" {
		return errors.New("must not have a fragment")
	}
	return nil
}

// redactor is a compiled Redact list.
type redactor []redactRule

type redactRule struct {
	re          *regexp.Regexp
	replacement string
}

func compileRedact(cfgs []RedactConfig) (redactor, error) {
	out := make(redactor, 0, len(cfgs))
	for i, r := range cfgs {
		re, err := regexp.Compile(r.Pattern)
		if err != nil {
			return nil, fmt.Errorf("redact[%d].pattern: %w", i, err)
		}
		out = append(out, redactRule{re: re, replacement: r.Replacement})
	}
	return out, nil
}

func (rs redactor) apply(s string) string {
	for _, r := range rs {
		s = r.re.ReplaceAllString(s, r.replacement)
	}
	return s
}
