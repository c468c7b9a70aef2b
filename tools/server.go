// Package tools exposes the vault over MCP: one file per tool family, each
// tool with an explicit input and output schema (snapshot-tested so the
// contract never drifts silently).
package tools

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/edit"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
)

// Options configure the MCP server.
type Options struct {
	// Version is reported to clients.
	Version string
	// Logger receives server logs (stderr in production); nil discards.
	Logger *slog.Logger
	// EnableWrite registers the write tools; without it the server never
	// writes into the vault.
	EnableWrite bool
	// EnableMemory registers obsidian_remember and obsidian_forget alone
	// (EnableWrite registers them too); MemoryFolder is where they write
	// ("": DefaultMemoryFolder; see MemoryFolder).
	EnableMemory bool
	MemoryFolder string
	// EnabledTools, when not empty, is the only tools registered;
	// DisabledTools are never registered. Names are exact tool names.
	EnabledTools, DisabledTools []string
	// sdkOutput leaves every tool's output to the go-sdk's own encoding
	// (tests compare it with withCanonicalOutput's bytes).
	sdkOutput bool
	// Reload brings the engine up to date with the files at paths
	// (vault-relative; nil means the whole vault) after a write tool
	// changed them; the server swaps the result in. Nil: writes are not
	// reflected until the next start (or the live watcher sees them).
	Reload func(ctx context.Context, paths []string) (*search.Engine, error)
	// Live reports how the server follows changes made outside it (nil:
	// it does not).
	Live func() LiveStatus
	// DailyNotes locates daily notes for the "today"/"yesterday" titles
	// (zero: from the vault's Daily notes or Periodic Notes settings,
	// else YYYY-MM-DD names anywhere; see package obsidian).
	DailyNotes DailyNotes
	// MaxReplyBytes is the byte budget of one tool reply (0:
	// DefaultMaxReplyBytes); a bigger reply becomes an error naming how
	// to page.
	MaxReplyBytes int
	// MaxFileSize is the note size cap the vault was loaded with (0:
	// vault.DefaultMaxFileSize): writes never grow a note past it.
	MaxFileSize int64
	// SystemTrash is where obsidian_delete_note puts a note when the
	// vault's trash setting is Obsidian's default, the system trash
	// (edit.FindSystemTrash). Nil: the vault's own .trash folder.
	SystemTrash *edit.SystemTrash
}

// DailyNotes is where daily notes live and how they are named.
type DailyNotes struct {
	// Folder is vault-relative ("" = anywhere).
	Folder string
	// Format is a moment.js date format, e.g. "YYYY-MM-DD".
	Format string
}

// Server is the MCP server over one vault. The engine can be swapped when
// the vault changes; calls in flight keep the engine they started with.
type Server struct {
	mcp    *mcp.Server
	eng    atomic.Pointer[search.Engine]
	logger *slog.Logger
	opts   Options
	// registered lists the tools actually registered, for vault/info.
	registered []string
	// writeMu serialises the tools that write: each reads, changes and
	// reloads before the next starts.
	writeMu sync.Mutex
}

// New builds the server and registers every tool, resource and prompt.
func New(e *search.Engine, opts Options) *Server {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{logger: logger, opts: opts}
	s.eng.Store(e)
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "enquire-mcp", Title: "enquire-mcp: Obsidian vault search", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: "Search an Obsidian vault with obsidian_search, then open hits with obsidian_read_note (by path or title) or the obsidian://note/{path} resource.",
		Logger:       logger,
	})
	s.mcp.AddReceivingMiddleware(errorCodes, s.boundReplies, s.recoverPanics, nullArguments)
	s.addSearch()
	s.addGetChunk()
	s.addRead()
	s.addReadNotes()
	if slices.Contains(e.Signals(), rankers.SignalBM25) {
		s.addFullText()
	}
	if _, ok := e.EmbeddingModel(); ok {
		s.addEmbeddings()
	}
	s.addNoteTools()
	s.addLinkTools()
	s.addSimilarTools()
	s.addMetaTools()
	s.addDataview()
	s.addResources()
	s.addPrompts()
	if opts.EnableWrite {
		s.addWriteTools()
		s.addEditTools()
		s.addTagTools()
	}
	if opts.EnableWrite || opts.EnableMemory {
		s.addMemoryTools()
	}
	return s
}

// Registered lists the registered tool names, in registration order.
func (s *Server) Registered() []string { return slices.Clone(s.registered) }

// wanted applies --enabled-tools and --disabled-tools.
func (s *Server) wanted(name string) bool {
	if slices.Contains(s.opts.DisabledTools, name) {
		return false
	}
	return len(s.opts.EnabledTools) == 0 || slices.Contains(s.opts.EnabledTools, name)
}

// addTool registers a typed tool unless the enable/disable lists exclude
// it. Every tool goes through here.
func addTool[In, Out any](s *Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	if !s.wanted(t.Name) {
		return
	}
	if tt, hh, ok := withCanonicalOutput(t, h); ok && !s.opts.sdkOutput {
		mcp.AddTool(s.mcp, withEncodedInput(tt), hh) // output_fast.go
	} else {
		mcp.AddTool(s.mcp, withEncodedInput(t), h)
	}
	s.registered = append(s.registered, t.Name)
}

// LiveStatus is how the server follows a vault that changes under it.
type LiveStatus struct {
	// Mode is "watch" (file events), "poll" (periodic stat walk) or "off".
	Mode string
	// LastChange is when a change was last applied (zero: none yet).
	LastChange time.Time
}

// live reports the live mode and the time of the last applied change.
func (s *Server) live() (mode, lastChange string) {
	if s.opts.Live == nil {
		return "off", ""
	}
	st := s.opts.Live()
	if !st.LastChange.IsZero() {
		lastChange = st.LastChange.UTC().Format(time.RFC3339)
	}
	return cmp.Or(st.Mode, "off"), lastChange
}

// refresh brings the engine up to date with the files at paths (nil: the
// whole vault) after a write. It runs to the end even when the request is
// cancelled: a half-applied write must not leave the engine stale.
func (s *Server) refresh(ctx context.Context, paths ...string) error {
	if s.opts.Reload == nil {
		return nil
	}
	e, err := s.opts.Reload(context.WithoutCancel(ctx), paths)
	if err != nil {
		return fmt.Errorf("reload the vault: %w", err)
	}
	s.Swap(e)
	return nil
}

// MCP returns the underlying go-sdk server (to run on a transport).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Swap replaces the engine (after the vault changed), unless the server
// already holds a newer one: of two updates racing to swap, the later
// engine wins whatever the order of the calls.
func (s *Server) Swap(e *search.Engine) {
	for {
		cur := s.eng.Load()
		if cur != nil && cur.Generation() > e.Generation() {
			return
		}
		if s.eng.CompareAndSwap(cur, e) {
			return
		}
	}
}

func (s *Server) engine() *search.Engine { return s.eng.Load() }

// recoverPanics turns a panic in any handler into an error reply: one bad
// request must never take the server down.
func (s *Server) recoverPanics(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if p := recover(); p != nil {
				s.logger.Error("panic in handler", "method", method, "panic", p, "stack", string(debug.Stack()))
				res, err = nil, fmt.Errorf("internal error in %s: %v", method, p)
			}
		}()
		return next(ctx, method, req)
	}
}

// errorCodes gives every error a handler returns a JSON-RPC code: the
// SDK sends an error without one as code 0, which JSON-RPC does not
// define. The only uncoded error the SDK's initialize returns is for a
// second initialize, an invalid request (-32600); any other uncoded error
// is the server's own failure (-32603). Errors that arise in the SDK
// before any handler (a call before initialize) are coded by the
// transports (see package stdio and httpserve).
func errorCodes(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		var we *jsonrpc.Error
		if err == nil || errors.As(err, &we) {
			return res, err
		}
		code := int64(jsonrpc.CodeInternalError)
		if method == "initialize" {
			code = jsonrpc.CodeInvalidRequest
		}
		return nil, &jsonrpc.Error{Code: code, Message: err.Error()}
	}
}

// nullArguments treats `"arguments": null` in tools/call like omitted
// arguments: the SDK would otherwise panic applying schema defaults to it.
func nullArguments(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && method == "tools/call" && bytes.Equal(bytes.TrimSpace(p.Arguments), []byte("null")) {
			p.Arguments = json.RawMessage("{}")
		}
		return next(ctx, method, req)
	}
}

// internal logs an unexpected error and returns it for the tool result.
func (s *Server) internal(tool string, err error) error {
	s.logger.Error("tool failed", "tool", tool, "err", err)
	return fmt.Errorf("%s failed: %w", tool, err)
}

func readOnly() *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &f}
}

// writes annotates a tool that changes files in the vault.
func writes(idempotent bool) *mcp.ToolAnnotations {
	t, f := true, false
	return &mcp.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: &t, IdempotentHint: idempotent, OpenWorldHint: &f}
}

// mustSchema infers the JSON schema of T; a failure is a programming error.
func mustSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("schema for %T: %v", *new(T), err))
	}
	describeEtags(s)
	return s
}

// describeEtags gives every etag and if_match property, at any depth, the
// one description of what they do (a struct tag cannot share a constant).
func describeEtags(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	for name, p := range s.Properties {
		switch {
		case name == "etag" && p.Description == "":
			p.Description = etagDoc
		case name == "if_match" && p.Description == "":
			p.Description = ifMatchDoc
		}
		describeEtags(p)
	}
	describeEtags(s.Items)
}

// inputSchema is T's schema, accepting unknown arguments: clients written
// for other Obsidian servers send extra keys, and refusing the whole call
// for them helps nobody.
func inputSchema[T any]() *jsonschema.Schema {
	s := mustSchema[T]()
	s.AdditionalProperties = nil
	return s
}

// outputSchema is T's schema with "null" dropped from slice and map
// types: handlers always send [] and {}, and clients handle a single type
// better than a type list.
func outputSchema[T any]() *jsonschema.Schema {
	s := mustSchema[T]()
	dropNull(s)
	return s
}

func dropNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	for _, p := range s.Properties {
		dropNull(p)
	}
	dropNull(s.Items)
	dropNull(s.AdditionalProperties)
}

func setRange(s *jsonschema.Schema, lo, hi, def int) {
	s.Minimum, s.Maximum = ptr(float64(lo)), ptr(float64(hi))
	s.Default = jsonRaw(fmt.Sprint(def))
}

func ptr[T any](v T) *T { return &v }

func jsonRaw(s string) json.RawMessage { return json.RawMessage(s) }
