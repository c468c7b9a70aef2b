package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// VaultInfoURI is the static resource describing the vault and server.
const VaultInfoURI = "obsidian://vault/info"

// noteResourcePage is how many notes one resources/list page lists.
const noteResourcePage = 500

// methodListResources is the MCP method the note listing answers.
const methodListResources = "resources/list"

// VaultInfo is the content of obsidian://vault/info.
type VaultInfo struct {
	Vault           string   `json:"vault" jsonschema:"Name of the vault's root folder."`
	NoteCount       int      `json:"note_count" jsonschema:"Markdown notes."`
	AttachmentCount int      `json:"attachment_count" jsonschema:"Other files (PDFs and images included)."`
	PDFCount        int      `json:"pdf_count" jsonschema:"PDF files."`
	PDFsIndexed     int      `json:"pdfs_indexed" jsonschema:"PDFs whose text is searchable (--include-pdfs)."`
	Signals         []string `json:"signals" jsonschema:"Search signals available: tfidf, bm25, embeddings."`
	EmbeddingModel  string   `json:"embedding_model,omitempty" jsonschema:"Model of the embeddings signal, when loaded."`
	// SignalWeights and QueryTextSentTo say how a search ranks and what
	// leaves the machine, so a client need not trust the README.
	SignalWeights   map[string]float64 `json:"signal_weights" jsonschema:"RRF weight of each available signal; a signal weighted 0 is reported per hit but does not move hits."`
	BM25            *BM25Info          `json:"bm25,omitempty" jsonschema:"BM25's parameters, when the persistent index feeds the BM25 signal."`
	QueryTextSentTo string             `json:"query_text_sent_to,omitempty" jsonschema:"The remote embedding server every search query's text is sent to (and changed notes' text after a write), when the embeddings use a remote model; absent when no text leaves the machine."`
	WriteEnabled    bool               `json:"write_enabled"`
	Version         string             `json:"version"`
	Tools           []string           `json:"tools" jsonschema:"Registered tools."`
	NoteResources   string             `json:"note_resources" jsonschema:"How resources/list lists notes."`
	LoadedAt        string             `json:"loaded_at" jsonschema:"When the vault snapshot was loaded, RFC 3339."`
	Live            string             `json:"live" jsonschema:"How changes made outside the server are followed: watch (file events), poll (periodic scan) or off."`
	LastChange      string             `json:"last_change,omitempty" jsonschema:"When a change to the vault was last applied, RFC 3339 UTC."`
	PrivacyRules    bool               `json:"privacy_rules" jsonschema:"Whether privacy rules (exclude globs, allow list, .enquire/ignore, frontmatter marker) are active."`
	HiddenNotes     int                `json:"hidden_notes" jsonschema:"How many notes (and searchable PDFs) the privacy rules hide; never which."`
	HiddenFiles     int                `json:"hidden_files" jsonschema:"How many other files (attachments) the privacy rules hide."`
}

// BM25Info are the parameters BM25 scores with: the defaults or --bm25-b.
type BM25Info struct {
	K1 float64 `json:"k1" jsonschema:"Term-frequency saturation."`
	B  float64 `json:"b" jsonschema:"Length normalisation: 0 none, 1 full."`
}

// addResources registers obsidian://vault/info and lists the notes as
// resources.
//
// The go-sdk lists only resources added one by one (AddResource), paged
// by ServerOptions.PageSize over its own registry: registering every note
// would cost a registry entry per note at start, go stale when a write
// swaps in a new snapshot, and need bookkeeping to resync. Instead a
// receiving middleware answers resources/list from the current snapshot:
// the registered static resources (vault/info) first, then every markdown
// note in path order, noteResourcePage per page, with a cursor holding
// the last path listed (so paging survives a snapshot swap). A page costs
// one binary search plus the page itself, however big the vault. Reads go
// through the obsidian://note/{+path} template.
func (s *Server) addResources() {
	s.mcp.AddResource(&mcp.Resource{
		URI:         VaultInfoURI,
		Name:        "vault-info",
		Title:       "Vault information",
		Description: "The vault's name, note, attachment and PDF counts, search signals, embedding model, write mode, version and registered tools.",
		MIMEType:    "application/json",
	}, s.readVaultInfo)
	s.mcp.AddReceivingMiddleware(s.listNoteResources)
}

// vaultInfo describes the current snapshot and server.
func (s *Server) vaultInfo() VaultInfo {
	e := s.engine()
	snap := e.Snapshot()
	info := VaultInfo{
		Vault: filepath.Base(snap.Root), Signals: nonNil(e.Signals()), WriteEnabled: s.opts.EnableWrite,
		Version: s.opts.Version, Tools: nonNil(s.Registered()), LoadedAt: snap.LoadedAt.UTC().Format(time.RFC3339),
		PrivacyRules: snap.Privacy.Filter != nil, HiddenNotes: snap.Privacy.HiddenNotes, HiddenFiles: snap.Privacy.HiddenFiles,
		NoteResources: fmt.Sprintf("resources/list lists every markdown note (obsidian://note/{path}), sorted by path, %d per page", noteResourcePage),
	}
	info.Live, info.LastChange = s.live()
	for _, n := range snap.Notes {
		if n.Kind == vault.KindPDF {
			info.PDFsIndexed++
		} else {
			info.NoteCount++
		}
	}
	info.AttachmentCount = len(snap.Attachments)
	for _, a := range snap.Attachments {
		if vault.IsPDF(a.Path) {
			info.PDFCount++
		}
	}
	info.SignalWeights = map[string]float64{}
	weights := e.Weights()
	for _, sig := range info.Signals {
		info.SignalWeights[sig] = weights[sig]
	}
	if w := weights[rankers.SignalFeedback]; w > 0 && len(info.Signals) > 0 {
		// Not a ranker of its own: the second TF-IDF pass of every default
		// search (rankers.TFIDF.Feedback).
		info.SignalWeights[rankers.SignalFeedback] = w
	}
	if w := weights[rankers.SignalProximity]; w > 0 && len(info.Signals) > 0 {
		// Not a ranker of its own either: the lexical signals' first notes
		// re-ranked by how close the query's terms are in them.
		info.SignalWeights[rankers.SignalProximity] = w
	}
	if slices.Contains(info.Signals, rankers.SignalBM25) {
		p := e.BM25Params()
		info.BM25 = &BM25Info{K1: p.K1, B: p.B}
	}
	info.QueryTextSentTo = e.RemoteEmbeddings()
	if m, ok := e.EmbeddingModel(); ok {
		info.EmbeddingModel = m.ID
		if m.Alias != "" && m.Alias != m.ID {
			info.EmbeddingModel = m.Alias + " (" + m.ID + ")"
		}
	}
	return info
}

func (s *Server) readVaultInfo(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	raw, err := json.MarshalIndent(s.vaultInfo(), "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode vault info: %w", err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
		URI: req.Params.URI, MIMEType: "application/json", Text: string(raw),
	}}}, nil
}

// listNoteResources answers resources/list: the SDK's registered
// resources on the first page, then the notes of the current snapshot.
func (s *Server) listNoteResources(next mcp.MethodHandler) mcp.MethodHandler {
	return s.recoverPanics(func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		lr, ok := req.(*mcp.ListResourcesRequest)
		if method != methodListResources || !ok {
			return next(ctx, method, req)
		}
		cursor := ""
		if lr.Params != nil {
			cursor = lr.Params.Cursor
		}
		after, err := decodeResourceCursor(cursor)
		if err != nil {
			return nil, err
		}
		// The SDK's own list (static resources, with its cache fields).
		base := &mcp.ListResourcesRequest{Session: lr.Session, Params: &mcp.ListResourcesParams{}, Extra: lr.Extra}
		r, err := next(ctx, method, base)
		if err != nil {
			return nil, err
		}
		res, ok := r.(*mcp.ListResourcesResult)
		if !ok {
			return r, nil
		}
		if cursor != "" {
			res.Resources = nil
		}
		res.Resources, res.NextCursor = s.noteResourcePage(res.Resources, after)
		return res, nil
	})
}

// noteResourcePage appends the markdown notes after the path `after` (""
// = from the start) to list, up to noteResourcePage of them, and returns
// the cursor of the next page ("" at the end).
func (s *Server) noteResourcePage(list []*mcp.Resource, after string) ([]*mcp.Resource, string) {
	notes := s.engine().Snapshot().Notes
	i := 0
	if after != "" {
		i = sort.Search(len(notes), func(i int) bool { return notes[i].Path > after })
	}
	if list == nil {
		list = []*mcp.Resource{}
	}
	added, last := 0, ""
	for ; i < len(notes); i++ {
		n := notes[i]
		if n.Kind != vault.KindMarkdown {
			continue
		}
		if added == noteResourcePage { // a note is left: there is a next page
			return list, encodeResourceCursor(last)
		}
		list = append(list, noteResource(n))
		added, last = added+1, n.Path
	}
	return list, ""
}

func noteResource(n *vault.Note) *mcp.Resource {
	return &mcp.Resource{
		URI: NoteURI(n.Path), Name: n.Title, Description: n.Path, MIMEType: "text/markdown", Size: n.Size,
		Annotations: &mcp.Annotations{LastModified: n.ModTime.UTC().Format(time.RFC3339)},
	}
}

// resourceCursorPrefix versions the resources/list cursor.
const resourceCursorPrefix = "notes1:"

func encodeResourceCursor(lastPath string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(resourceCursorPrefix + lastPath))
}

func decodeResourceCursor(c string) (string, error) {
	if c == "" {
		return "", nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || !strings.HasPrefix(string(raw), resourceCursorPrefix) || len(raw) == len(resourceCursorPrefix) {
		return "", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid resources/list cursor; list again without a cursor"}
	}
	return strings.TrimPrefix(string(raw), resourceCursorPrefix), nil
}
