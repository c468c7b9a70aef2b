package httpserve

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"
)

// reqInfo collects what the access log line reports; the middlewares
// fill it in as the request goes through.
type reqInfo struct {
	client, rpc, tool, args, reason string
	quiet                           bool // health probes log at debug level
}

type infoKey struct{}

// logInfo is the request's log record (a throwaway one outside accessLog).
func logInfo(r *http.Request) *reqInfo {
	if i, ok := r.Context().Value(infoKey{}).(*reqInfo); ok {
		return i
	}
	return &reqInfo{}
}

// peek reads the JSON-RPC method and tool name of a body for the log;
// the arguments (query text) only when asked to.
func (i *reqInfo) peek(body []byte, withArgs bool) {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Name      string          `json:"name"`
			URI       string          `json:"uri"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil {
		return
	}
	i.rpc, i.tool = m.Method, m.Params.Name
	if withArgs {
		switch {
		case len(m.Params.Arguments) > 0:
			i.args = trimQuery(string(m.Params.Arguments))
		case m.Params.URI != "":
			i.args = trimQuery(m.Params.URI)
		}
	}
}

// recorder remembers the status and size of a response.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(p)
	r.bytes += int64(n)
	return n, err
}

// Flush keeps SSE streaming through the recorder.
func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// accessLog writes one structured line per request to the logger: never
// the token, and the query text only with LogQueries.
func (s *Server) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		info := &reqInfo{}
		rec := &recorder{ResponseWriter: w}
		next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), infoKey{}, info)))
		level := slog.LevelInfo
		if info.quiet {
			level = slog.LevelDebug
		}
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		attrs := []slog.Attr{
			slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", rec.status), slog.Int64("bytes", rec.bytes),
			slog.Float64("ms", float64(time.Since(start).Microseconds())/1000),
			slog.String("remote", remoteIP(r)),
		}
		for _, kv := range [][2]string{{"client", info.client}, {"rpc", info.rpc}, {"tool", info.tool}, {"args", info.args}, {"reason", info.reason}} {
			if kv[1] != "" {
				attrs = append(attrs, slog.String(kv[0], kv[1]))
			}
		}
		s.cfg.Logger.LogAttrs(r.Context(), level, "http", attrs...)
	})
}
