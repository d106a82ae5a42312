package judgeclient

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxUnboundedWait caps a server-requested wait when the caller's context has
// no deadline: a Retry-After longer than this ends the attempts instead of
// parking the caller.
const maxUnboundedWait = time.Minute

// retryableStatus reports whether an HTTP status is worth another attempt:
// 429 (rate limited) and every 5xx. Other 4xx mean the request itself is
// wrong (bad key, unknown model, too long a prompt) and would fail again.
func retryableStatus(code int) bool {
	return code == http.StatusTooManyRequests || code >= 500 && code <= 599
}

// backoff returns the full-jitter wait before retry n (0 for the first
// retry): uniform in [0, min(maxWait, initial*2^n)].
func backoff(n int, initial, maxWait time.Duration) time.Duration {
	ceiling := maxWait
	if n < 62 {
		if d := initial << n; d > 0 && d < maxWait {
			ceiling = d
		}
	}
	if ceiling <= 0 {
		return 0
	}
	return rand.N(ceiling + 1)
}

// retryAfter reads how long the server asked us to wait: retry-after-ms
// (OpenAI and Azure OpenAI send it, in milliseconds), else Retry-After as
// delay-seconds or an HTTP-date (RFC 9110 §10.2.3). ok is false when neither
// header holds a usable value; a date in the past means no wait.
func retryAfter(h http.Header, now time.Time) (d time.Duration, ok bool) {
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && ms < float64(24*time.Hour/time.Millisecond) {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 || secs > int64(24*time.Hour/time.Second) {
			return 0, false
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
