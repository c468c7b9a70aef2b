package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// DefaultMaxReplyBytes is the default byte budget of one tool reply.
const DefaultMaxReplyBytes = 1 << 20

// maxErrorBytes bounds the text of an error reply: an error may quote a
// rejected argument, never all of it (a 15 MiB query must not come back).
const maxErrorBytes = 600

// maxQuoted bounds how much of an argument an error message repeats.
const maxQuoted = 200

// quote is %q of s cut to maxQuoted bytes (on a rune boundary), saying
// how much was left out.
func quote(s string) string {
	if len(s) <= maxQuoted {
		return fmt.Sprintf("%q", s)
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%q… (%d bytes in all)", s[:cut], len(s))
}

// clipText cuts s to at most max bytes on a rune boundary, marking the cut.
func clipText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes cut)", len(s)-cut)
}

// replyBudget returns the reply byte budget in force.
func (s *Server) replyBudget() int {
	if s.opts.MaxReplyBytes > 0 {
		return s.opts.MaxReplyBytes
	}
	return DefaultMaxReplyBytes
}

// boundReplies holds every tool reply to the byte budget and every error
// to maxErrorBytes. Tools that can produce big replies page (read_note by
// offset/max_bytes, link and list tools by cursor); this is the backstop
// that turns any reply still over budget into an error naming the way
// to page, instead of megabytes a client cannot take.
func (s *Server) boundReplies(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil {
			return res, clipError(err)
		}
		r, ok := res.(*mcp.CallToolResult)
		if method != "tools/call" || !ok || r == nil {
			return res, nil
		}
		if r.IsError {
			for _, c := range r.Content {
				if t, ok := c.(*mcp.TextContent); ok {
					t.Text = clipText(t.Text, maxErrorBytes)
				}
			}
			return r, nil
		}
		budget := s.replyBudget()
		if replySizeBound(r) <= budget {
			return r, nil // fits for sure: no need to encode it to know
		}
		if size := replySize(r); size > budget {
			name := ""
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
				name = p.Name
			}
			s.logger.Warn("tool reply over budget", "tool", name, "bytes", size, "budget", budget)
			msg := fmt.Sprintf("the reply of %s would be %d bytes, over the %d-byte reply budget (serve --max-reply-bytes): ask for less (offset and max_bytes for obsidian_read_note, limit and cursor for lists, a section or format=map)", name, size, budget)
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, nil
		}
		return r, nil
	}
}

// replyOverhead bounds the bytes an encoded tool result adds around its
// texts and structured content: field names, quotes, braces, isError.
const (
	replyOverhead   = 256
	contentOverhead = 64
	// maxEscape is the most bytes JSON encoding makes of one input byte
	// (a control or HTML-special character becomes \u00XX).
	maxEscape = 6
)

// replySizeBound is an upper bound of replySize(r) that needs no
// encoding, for the common result of text contents and pre-encoded
// structured content; for any other shape it is replySize(r) itself.
// Encoding a search result only to learn that it is far under the budget
// was 3 % of a saturated HTTP server's CPU.
func replySizeBound(r *mcp.CallToolResult) int {
	sc, ok := r.StructuredContent.(json.RawMessage)
	if r.Meta != nil || r.InputRequests != nil || r.RequestState != "" || (r.StructuredContent != nil && !ok) {
		return replySize(r)
	}
	n := replyOverhead + maxEscape*len(sc)
	for _, c := range r.Content {
		t, ok := c.(*mcp.TextContent)
		if !ok || t.Meta != nil || t.Annotations != nil {
			return replySize(r)
		}
		n += contentOverhead + maxEscape*len(t.Text)
	}
	return n
}

// replySize is the encoded size of a tool result.
func replySize(r *mcp.CallToolResult) int {
	b, err := json.Marshal(r)
	if err != nil {
		return 0
	}
	return len(b)
}

// clipError bounds a protocol error's message, keeping its JSON-RPC code.
func clipError(err error) error {
	if len(err.Error()) <= maxErrorBytes {
		return err
	}
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return &jsonrpc.Error{Code: we.Code, Message: clipText(we.Message, maxErrorBytes)}
	}
	return errors.New(clipText(err.Error(), maxErrorBytes))
}

// maxFileSize is the note size cap in force (--max-file-size).
func (s *Server) maxFileSize() int64 {
	if s.opts.MaxFileSize > 0 {
		return s.opts.MaxFileSize
	}
	return vault.DefaultMaxFileSize
}

// tooLarge says why a note the snapshot skipped for its size cannot be
// read ("" when it was not skipped for that): "not found" would be false.
// A title matches a skipped file by its name, as a wikilink would.
func tooLarge(snap *vault.Snapshot, rel, title string) error {
	for _, w := range snap.Warnings {
		named := w.Path == rel || (title != "" && strings.EqualFold(strings.TrimSuffix(path.Base(w.Path), ".md"), title))
		if named && strings.Contains(w.Message, "size cap") {
			return fmt.Errorf("note %s is too large (%s); raise --max-file-size to read it", w.Path, w.Message)
		}
	}
	return nil
}

// checkGrowth refuses a write that would make a note larger than the size
// cap: the server could not read it back.
func (s *Server) checkGrowth(rel string, size int) error {
	if limit := s.maxFileSize(); int64(size) > limit {
		return fmt.Errorf("%s would be %s, over the %s note size cap (--max-file-size); nothing was written", rel, mb(int64(size)), mb(limit))
	}
	return nil
}

// mb renders a byte count in MB with one decimal.
func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }
