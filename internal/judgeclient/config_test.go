package judgeclient

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/confmap"
)

func validConfig() Config {
	cfg := NewDefaultConfig()
	cfg.ClientConfig.Endpoint = "https://api.openai.com/v1"
	cfg.Model = "gpt-4o-mini"
	return cfg
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(*Config)
		wantErr string
	}{
		{name: "valid", edit: func(*Config) {}},
		{name: "valid azure", edit: func(c *Config) {
			c.ClientConfig.Endpoint = "https://res.openai.azure.com"
			c.APIVersion = "2024-10-21"
		}},
		{name: "zero durations take the defaults", edit: func(c *Config) {
			c.RequestTimeout, c.InitialBackoff, c.MaxBackoff, c.MaxRetries = 0, 0, 0, 0
		}},
		{name: "everything missing", edit: func(c *Config) { *c = Config{} },
			wantErr: "endpoint: must not be empty\nmodel: must not be empty"},
		{name: "endpoint without scheme", edit: func(c *Config) { c.ClientConfig.Endpoint = "api.openai.com/v1" },
			wantErr: `endpoint: must start with http:// or https://`},
		{name: "endpoint with another scheme", edit: func(c *Config) { c.ClientConfig.Endpoint = "ftp://x/v1" },
			wantErr: `endpoint: scheme must be http or https, got "ftp"`},
		{name: "endpoint without host", edit: func(c *Config) { c.ClientConfig.Endpoint = "http:///v1" },
			wantErr: "endpoint: has no host"},
		{name: "unparsable endpoint is not quoted back", edit: func(c *Config) { c.ClientConfig.Endpoint = "http://user:p%zz@host" },
			wantErr: "endpoint: not a valid URL"},
		{name: "negative numbers", edit: func(c *Config) {
			c.RequestTimeout = -time.Second
			c.MaxRetries = -1
			c.InitialBackoff = -time.Millisecond
			c.MaxBackoff = -time.Millisecond
		}, wantErr: "request_timeout: must not be negative, got -1s\n" +
			"max_retries: must not be negative, got -1\n" +
			"initial_backoff: must not be negative, got -1ms\n" +
			"max_backoff: must not be negative, got -1ms"},
		{name: "initial above max backoff", edit: func(c *Config) {
			c.InitialBackoff = 2 * time.Second
			c.MaxBackoff = time.Second
		}, wantErr: "initial_backoff: 2s is more than max_backoff 1s"},
		{name: "bad redact patterns", edit: func(c *Config) {
			c.Redact = []RedactConfig{{Pattern: `ok`}, {Pattern: `(`}, {Replacement: "x"}}
		}, wantErr: "redact[1].pattern: error parsing regexp: missing closing ): `(`\n" +
			"redact[2].pattern: must not be empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := validConfig()
			tt.edit(&cfg)
			err := cfg.Validate()
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tt.wantErr)
		})
	}
}

func TestConfigUnmarshal(t *testing.T) {
	raw := map[string]any{
		"endpoint":        "https://res.openai.azure.com",
		"model":           "judge-deployment",
		"api_key":         "sk-abc",
		"api_version":     "2024-10-21",
		"request_timeout": "5s",
		"max_retries":     5,
		"initial_backoff": "100ms",
		"max_backoff":     "2s",
		"timeout":         "20s",
		"headers":         map[string]any{"X-Tenant": "a"},
		"keepalive":       map[string]any{"idle_conn_timeout": "30s"},
		"redact": []any{
			map[string]any{"pattern": `\d{16}`, "replacement": "[card]"},
		},
	}
	want := NewDefaultConfig()
	want.ClientConfig.Endpoint = "https://res.openai.azure.com"
	want.ClientConfig.Timeout = 20 * time.Second
	want.ClientConfig.Headers = configopaque.MapList{{Name: "X-Tenant", Value: "a"}}
	want.ClientConfig.IdleConnTimeout = 30 * time.Second
	want.Model = "judge-deployment"
	want.APIKey = "sk-abc"
	want.APIVersion = "2024-10-21"
	want.RequestTimeout = 5 * time.Second
	want.MaxRetries = 5
	want.InitialBackoff = 100 * time.Millisecond
	want.MaxBackoff = 2 * time.Second
	want.Redact = []RedactConfig{{Pattern: `\d{16}`, Replacement: "[card]"}}

	t.Run("top level", func(t *testing.T) {
		got := NewDefaultConfig()
		require.NoError(t, confmap.NewFromStringMap(raw).Unmarshal(&got))
		assert.Equal(t, want, got)
		require.NoError(t, confmap.Validate(&got))
	})
	// ClientConfig has its own Unmarshal; had Config embedded it, that
	// method would be promoted and decode Config nested in another
	// component's config with only the HTTP keys.
	t.Run("nested in a component config", func(t *testing.T) {
		type rule struct {
			Judge Config `mapstructure:"judge"`
		}
		got := rule{Judge: NewDefaultConfig()}
		require.NoError(t, confmap.NewFromStringMap(map[string]any{"judge": raw}).Unmarshal(&got))
		assert.Equal(t, want, got.Judge)
	})
	t.Run("unknown keys are rejected", func(t *testing.T) {
		got := NewDefaultConfig()
		err := confmap.NewFromStringMap(map[string]any{"model": "m", "endpoint": "http://x", "max_retires": 5, "API_VERSION": "v", "tls": map[string]any{"insecure": true}}).Unmarshal(&got)
		require.ErrorContains(t, err, "invalid keys: max_retires")
		type rule struct {
			Judge Config `mapstructure:"judge"`
		}
		r := rule{Judge: NewDefaultConfig()}
		err = confmap.NewFromStringMap(map[string]any{"judge": map[string]any{"model": "m", "api_verison": "v"}}).Unmarshal(&r)
		require.ErrorContains(t, err, "invalid keys: api_verison")
	})
	t.Run("every key of the HTTP client block is known", func(t *testing.T) {
		for _, k := range []string{"endpoint", "proxy_url", "tls", "headers", "auth", "timeout", "compression", "keepalive", "idle_conn_timeout", "middlewares", "model", "api_key", "api_version", "request_timeout", "max_retries", "initial_backoff", "max_backoff", "redact"} {
			assert.True(t, configKeys[k], k)
		}
		assert.False(t, configKeys["_"])
		assert.False(t, configKeys["clientconfig"])
	})
	t.Run("confmap.Validate prefixes paths", func(t *testing.T) {
		type rule struct {
			Judge Config `mapstructure:"judge"`
		}
		r := rule{Judge: NewDefaultConfig()}
		r.Judge.ClientConfig.Endpoint = "http://x"
		r.Judge.Redact = []RedactConfig{{Pattern: "["}}
		require.EqualError(t, confmap.Validate(&r),
			"judge: model: must not be empty\nredact[0].pattern: error parsing regexp: missing closing ]: `[`")
	})
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header http.Header
		want   time.Duration
		wantOK bool
	}{
		{name: "none", header: http.Header{}},
		{name: "seconds", header: http.Header{"Retry-After": {"2"}}, want: 2 * time.Second, wantOK: true},
		{name: "zero seconds", header: http.Header{"Retry-After": {"0"}}, want: 0, wantOK: true},
		{name: "HTTP date", header: http.Header{"Retry-After": {"Wed, 25 Nov 2026 12:00:07 GMT"}}, want: 7 * time.Second, wantOK: true},
		{name: "HTTP date in the past", header: http.Header{"Retry-After": {"Wed, 25 Nov 2026 11:00:00 GMT"}}, want: 0, wantOK: true},
		{name: "milliseconds win", header: http.Header{"Retry-After": {"2"}, "Retry-After-Ms": {"250"}}, want: 250 * time.Millisecond, wantOK: true},
		{name: "fractional milliseconds", header: http.Header{"Retry-After-Ms": {"1.5"}}, want: 1500 * time.Microsecond, wantOK: true},
		{name: "bad milliseconds fall back to seconds", header: http.Header{"Retry-After": {"3"}, "Retry-After-Ms": {"soon"}}, want: 3 * time.Second, wantOK: true},
		{name: "negative", header: http.Header{"Retry-After": {"-1"}}},
		{name: "absurd", header: http.Header{"Retry-After": {"99999999999"}}},
		{name: "garbage", header: http.Header{"Retry-After": {"later"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := retryAfter(tt.header, now)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestBackoffIsFullJitterUnderTheCap(t *testing.T) {
	const initial, maxWait = 10 * time.Millisecond, 100 * time.Millisecond
	for n, ceiling := range []time.Duration{10, 20, 40, 80, 100, 100, 100} {
		ceiling *= time.Millisecond
		var top time.Duration
		for range 500 {
			d := backoff(n, initial, maxWait)
			require.GreaterOrEqual(t, d, time.Duration(0))
			require.LessOrEqual(t, d, ceiling, "retry %d", n)
			top = max(top, d)
		}
		assert.Greater(t, top, ceiling/2, "retry %d: waits spread over [0, %s]", n, ceiling)
	}
	assert.LessOrEqual(t, backoff(1000, initial, maxWait), maxWait, "no overflow")
}

func TestRetryableStatus(t *testing.T) {
	for code, want := range map[int]bool{
		200: false, 400: false, 401: false, 403: false, 404: false, 408: false, 409: false, 422: false,
		429: true, 500: true, 502: true, 503: true, 504: true, 599: true,
	} {
		assert.Equal(t, want, retryableStatus(code), "status %d", code)
	}
}
