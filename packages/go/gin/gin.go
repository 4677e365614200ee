// Package watchloggin records requests a gin engine handles: the route template is
// Context.FullPath, path_params its Params.
package watchloggin

import (
	"io"
	"net/http"

	"github.com/gin-gonic/gin"
	watchlog "github.com/watchlog/watchlog/packages/go"
)

// Option configures the gin middleware.
type Option func(*options)

type options struct {
	identify func(*gin.Context) watchlog.Identity
}

// Identify tells who made a request from gin's context (where authentication middleware keeps
// the user, with c.Set); it replaces Config.Identify for this middleware. Called after the
// handlers ran, in the request's goroutine, held to Config.IdentifyTimeout (c.Request.Context()
// ends then) as Config.Identify is.
func Identify(f func(c *gin.Context) watchlog.Identity) Option {
	return func(o *options) { o.identify = f }
}

// Middleware is watchlog's middleware for gin: register it first with engine.Use, so it also
// sees requests no route matched (recorded with their URL path and gin's 404 or 405).
func Middleware(c *watchlog.Client, opts ...Option) gin.HandlerFunc {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return func(g *gin.Context) {
		original := g.Writer
		handler := c.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			g.Request = r
			// Writes go through the SDK's writer (it notes the status and, if asked, the body)
			// and on to gin's own; gin's bookkeeping (Status, Size, Written) stays gin's.
			g.Writer = &writer{ResponseWriter: original, through: w}
			defer func() { g.Writer = original }()
			g.Next()
		}), func(*http.Request) watchlog.RouteInfo {
			info := watchlog.RouteInfo{Route: g.FullPath(), Status: original.Status(), IP: g.ClientIP()}
			if len(g.Params) > 0 {
				info.Params = make(map[string]string, len(g.Params))
				for _, p := range g.Params {
					info.Params[p.Key] = p.Value
				}
			}
			if o.identify != nil {
				info.Identify = func(r *http.Request) watchlog.Identity {
					// The request carries IdentifyTimeout's deadline: g.Request.Context() has it.
					g.Request = r
					return o.identify(g)
				}
			}
			return info
		})
		handler.ServeHTTP(original, g.Request)
	}
}

// writer is gin's ResponseWriter with its writes routed through the SDK's.
type writer struct {
	gin.ResponseWriter
	through http.ResponseWriter
}

func (w *writer) WriteHeader(code int)              { w.through.WriteHeader(code) }
func (w *writer) Write(p []byte) (int, error)       { return w.through.Write(p) }
func (w *writer) WriteString(s string) (int, error) { return io.WriteString(w.through, s) }
