// Package watchlogchi records requests a chi router handles: the route template is chi's
// RoutePattern (mounts and sub-routers included), path_params its URL parameters.
package watchlogchi

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"
	watchlog "github.com/watchlog/watchlog/packages/go"
)

// Middleware is watchlog's middleware for chi: register it first with router.Use, so chi's
// routing context exists when it runs and is complete when the handler returned. A request no
// route matched (404, 405) is recorded with its URL path.
func Middleware(c *watchlog.Client) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return c.Wrap(next, route)
	}
}

func route(r *http.Request) watchlog.RouteInfo {
	rctx := chi.RouteContext(r.Context())
	if rctx == nil {
		return watchlog.RouteInfo{}
	}
	// A request no route matched leaves the patterns empty, or only a mount's catch-all.
	pattern := rctx.RoutePattern()
	if pattern == "" || pattern == "/*" && len(rctx.URLParams.Keys) == 0 {
		return watchlog.RouteInfo{}
	}
	var params map[string]string
	for i, k := range rctx.URLParams.Keys {
		// A mount's catch-all is no parameter of the route, unless the route ends with it.
		if k == "*" && !strings.HasSuffix(pattern, "*") {
			continue
		}
		if params == nil {
			params = make(map[string]string, len(rctx.URLParams.Keys))
		}
		if i < len(rctx.URLParams.Values) {
			params[k] = rctx.URLParams.Values[i]
		}
	}
	return watchlog.RouteInfo{Route: pattern, Params: params}
}
