package watchlog

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Config is the client's configuration; New checks every field and names each fault. A zero
// numeric field takes its default.
type Config struct {
	// Endpoint is watchlog's base URL, http or https (a path prefix is kept); events go to
	// {Endpoint}/v1/audit/batch. Required.
	Endpoint string
	// APIKey is the project's API key, sent as X-API-Key. Required.
	APIKey string
	// ServiceName is every event's service_name, 1–255 characters. Required.
	ServiceName string
	// Environment is production, staging or development. Required.
	Environment string

	// CaptureRequestBody and CaptureResponseBody record JSON object bodies (masked, capped).
	CaptureRequestBody  bool
	CaptureResponseBody bool
	// MaxBodyBytes is the largest body, query or path-parameter object sent, as compact JSON
	// bytes before masking; 256–1048576, default 16384. Larger ones become a marker object.
	MaxBodyBytes int

	// UnsupportedMethods maps a method watchlog does not accept (PATCH, HEAD, OPTIONS, …) to GET,
	// POST, PUT or DELETE; nil, or an answer of anything else, skips the request (counted in
	// Stats.SkippedMethods). NearestMethod is a ready mapping.
	UnsupportedMethods func(method string) string
	// AnonymousIdentifier is the identifier when Identify gives none, 1–100 characters, default
	// "anonymous".
	AnonymousIdentifier string
	// Identify tells who made a request; called once per recorded request, after the handler
	// returned, in the request's goroutine (keep it quick). Its request's context ends after
	// IdentifyTimeout, so that a lookup made with it stops then. A panic in it, or an answer after
	// that deadline, records the request as anonymous and is logged once.
	Identify func(r *http.Request) Identity
	// IdentifyTimeout bounds Identify (default 5 s, from 1 ms to 1 min), as identifyTimeoutMs
	// bounds the Node SDK's.
	IdentifyTimeout time.Duration
	// ClientIP gives the client's address (behind a proxy you trust, from its header); default:
	// the host of Request.RemoteAddr.
	ClientIP func(r *http.Request) string
	// DisableRequestIDHeader stops the middleware setting X-Request-ID on responses whose id it
	// generated.
	DisableRequestIDHeader bool

	// BatchMaxEvents: a batch leaves when this many events are queued, and never holds more;
	// 1–1000, default 500.
	BatchMaxEvents int
	// BatchMaxBytes: a batch leaves when the queued JSON reaches this size, and is never larger
	// (one larger event travels alone); 16384–5242880, default 1048576.
	BatchMaxBytes int
	// FlushInterval: otherwise queued events leave this long after they were queued; 1ms–60s,
	// default 1s.
	FlushInterval time.Duration
	// MaxQueueEvents: events kept in memory while they wait; past it the oldest are dropped;
	// 1–1000000, default 10000.
	MaxQueueEvents int
	// Concurrency: batches in flight at once, 1–16, default 2.
	Concurrency int
	// RetryInitialDelay (1ms–60s, default 500ms) and RetryMaxDelay (at least the initial delay, at
	// most 10m, default 30s) bound the exponential backoff with full jitter.
	RetryInitialDelay time.Duration
	RetryMaxDelay     time.Duration
	// RequestTimeout is one delivery attempt's deadline; 100ms–5m, default 10s.
	RequestTimeout time.Duration

	// Logger receives the few lines the client writes (an outage, dropping, refusals); default
	// slog.Default(). A logger with a discarding handler silences it.
	Logger *slog.Logger
	// OnError is called with each problem reported (also logged).
	OnError func(*DeliveryError)
	// Disabled: the middleware passes requests through and nothing is recorded.
	Disabled bool
}

// ConfigProblem names one faulty option and its rule.
type ConfigProblem struct {
	Option  string
	Message string
}

// ConfigError is New's error: every faulty option (the API key is never echoed).
type ConfigError struct{ Problems []ConfigProblem }

func (e *ConfigError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = fmt.Sprintf("  - %s: %s", p.Option, p.Message)
	}
	return "invalid watchlog config:\n" + strings.Join(lines, "\n")
}

type intRule struct {
	name          string
	field         *int
	def, min, max int
}

type durationRule struct {
	name          string
	field         *time.Duration
	def, min, max time.Duration
}

const kib, mib = 1024, 1024 * 1024

// resolve checks cfg and fills its defaults; it returns the batch URL.
func resolve(cfg *Config) (string, error) {
	var problems []ConfigProblem
	problem := func(option, format string, args ...any) {
		problems = append(problems, ConfigProblem{option, fmt.Sprintf(format, args...)})
	}
	batchURL := ""
	if u, err := url.Parse(strings.TrimSpace(cfg.Endpoint)); cfg.Endpoint == "" || err != nil {
		problem("Endpoint", "must be the http(s) URL of watchlog (got %q)", cfg.Endpoint)
	} else if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		problem("Endpoint", "must be an http or https URL with a host (got %q)", cfg.Endpoint)
	} else if u.User != nil {
		problem("Endpoint", "must not contain credentials: the API key goes in APIKey")
	} else if u.RawQuery != "" || u.Fragment != "" || strings.Contains(cfg.Endpoint, "?") {
		problem("Endpoint", "must be the base URL, without a query or fragment (got %q)", cfg.Endpoint)
	} else {
		u.Path = strings.TrimRight(u.Path, "/") + "/v1/audit/batch"
		u.RawPath = ""
		batchURL = u.String()
	}
	if cfg.APIKey == "" {
		problem("APIKey", "is required: the API key of the watchlog project")
	} else if len(cfg.APIKey) > 1024 || !printableASCII(cfg.APIKey) {
		problem("APIKey", "must be printable ASCII without spaces (it is sent as a header), at most 1024 characters")
	}
	if strings.TrimSpace(cfg.ServiceName) == "" {
		problem("ServiceName", "must be a non-empty string")
	} else if n := utf16Len(cfg.ServiceName); n > maxServiceName {
		problem("ServiceName", "must be at most %d characters (got %d)", maxServiceName, n)
	}
	switch cfg.Environment {
	case "production", "staging", "development":
	default:
		problem("Environment", "must be one of production, staging, development (got %q)", cfg.Environment)
	}
	if cfg.AnonymousIdentifier == "" {
		cfg.AnonymousIdentifier = "anonymous"
	} else if utf16Len(cfg.AnonymousIdentifier) > maxIdentifier {
		problem("AnonymousIdentifier", "must be 1 to %d characters", maxIdentifier)
	}
	for _, r := range []intRule{
		{"MaxBodyBytes", &cfg.MaxBodyBytes, 16 * kib, 256, mib},
		{"BatchMaxEvents", &cfg.BatchMaxEvents, 500, 1, 1000},
		{"BatchMaxBytes", &cfg.BatchMaxBytes, mib, 16 * kib, 5 * mib},
		{"MaxQueueEvents", &cfg.MaxQueueEvents, 10000, 1, 1000000},
		{"Concurrency", &cfg.Concurrency, 2, 1, 16},
	} {
		if *r.field == 0 {
			*r.field = r.def
		} else if *r.field < r.min || *r.field > r.max {
			problem(r.name, "must be from %d to %d (got %d)", r.min, r.max, *r.field)
		}
	}
	for _, r := range []durationRule{
		{"FlushInterval", &cfg.FlushInterval, time.Second, time.Millisecond, time.Minute},
		{"RetryInitialDelay", &cfg.RetryInitialDelay, 500 * time.Millisecond, time.Millisecond, time.Minute},
		{"RetryMaxDelay", &cfg.RetryMaxDelay, 30 * time.Second, time.Millisecond, 10 * time.Minute},
		{"RequestTimeout", &cfg.RequestTimeout, 10 * time.Second, 100 * time.Millisecond, 5 * time.Minute},
		{"IdentifyTimeout", &cfg.IdentifyTimeout, 5 * time.Second, time.Millisecond, time.Minute},
	} {
		if *r.field == 0 {
			*r.field = r.def
		} else if *r.field < r.min || *r.field > r.max {
			problem(r.name, "must be from %v to %v (got %v)", r.min, r.max, *r.field)
		}
	}
	if cfg.RetryMaxDelay < cfg.RetryInitialDelay {
		problem("RetryMaxDelay", "must be at least RetryInitialDelay (%v)", cfg.RetryInitialDelay)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if len(problems) > 0 {
		return "", &ConfigError{problems}
	}
	return batchURL, nil
}
