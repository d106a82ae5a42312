package judgeclient

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Error is every error [Client.Complete] returns once a request was built.
// Its text never holds a secret: it is composed from the method, the URL
// without userinfo or query, the status, the server's error message and the
// underlying error's text, and then every known secret (the API key, header
// values, passwords in endpoint or proxy_url) is replaced by [REDACTED] in
// case a server or a library echoed one. It does not wrap the http.Client's
// errors (their text holds the full URL); it wraps only context.Canceled,
// context.DeadlineExceeded and toolcall.ErrJudgeSkipped, for errors.Is.
type Error struct {
	// StatusCode is the last HTTP status received (0: none, e.g. a
	// transport error or an attempt that timed out).
	StatusCode int
	// Attempts is the number of requests sent.
	Attempts int

	msg   string
	kinds []error
}

func (e *Error) Error() string   { return e.msg }
func (e *Error) Unwrap() []error { return e.kinds }

// redacted replaces secrets in error and log text.
const redacted = "[REDACTED]"

// sanitizer removes known secrets from text.
type sanitizer struct {
	secrets []string
}

func newSanitizer(cfg *Config) *sanitizer {
	z := &sanitizer{}
	z.add(string(cfg.APIKey))
	for _, v := range cfg.ClientConfig.Headers.Iter {
		z.add(string(v))
	}
	for _, raw := range []string{cfg.ClientConfig.Endpoint, cfg.ClientConfig.ProxyURL} {
		// The password only: a user name is no secret, and replacing a
		// common word like "judge" everywhere would garble every message.
		if u, err := url.Parse(raw); err == nil && u.User != nil {
			if p, ok := u.User.Password(); ok {
				z.add(p)
			}
		}
	}
	return z
}

func (z *sanitizer) add(secret string) {
	// Any non-empty secret is searched for, however short: a garbled message
	// is better than a leaked credential. A "Bearer x" header value is also
	// searched for as x.
	if secret == "" {
		return
	}
	z.secrets = append(z.secrets, secret)
	if rest, ok := strings.CutPrefix(secret, "Bearer "); ok && rest != "" {
		z.secrets = append(z.secrets, rest)
	}
}

func (z *sanitizer) clean(text string) string {
	for _, secret := range z.secrets {
		text = strings.ReplaceAll(text, secret, redacted)
	}
	return text
}

// displayURL renders u for messages: scheme, host and path only, so userinfo
// and query parameters (which gateways sometimes use for keys) never show.
func displayURL(u *url.URL) string {
	v := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}
	return v.String()
}

// maxServerMessage bounds the server text quoted in an error.
const maxServerMessage = 300

// serverText makes server-sent text fit for an error: secrets are replaced
// first (so a cut cannot leave part of one), then control characters become
// spaces, invalid UTF-8 is replaced and the text is cut at maxServerMessage
// bytes.
func (z *sanitizer) serverText(s string) string {
	s = z.clean(strings.ToValidUTF8(s, "\uFFFD"))
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.TrimSpace(s))
	if len(s) <= maxServerMessage {
		return s
	}
	cut := maxServerMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
