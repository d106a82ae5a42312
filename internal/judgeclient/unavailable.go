package judgeclient

// Unavailable reports a judge that could not be reached or did not answer:
// no status (a transport error or a timeout), 429 or a 5xx after the
// retries. Callers report such runs as not judged rather than as errors;
// other statuses (401, 404, 400) are configuration errors.
func (e *Error) Unavailable() bool {
	return e.StatusCode == 0 || e.StatusCode == 429 || e.StatusCode >= 500
}
