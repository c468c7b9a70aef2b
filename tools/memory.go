package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/unicode/norm"

	"github.com/enquire-mcp/enquire-mcp/edit"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Memories are notes: obsidian_remember writes a short fact as
// <memory folder>/<key>.md with frontmatter type: memory, key,
// importance, tags, source, created and updated, and the fact as the body;
// obsidian_forget deletes it. Search finds them like any note (with
// result_type memory), and every other tool sees an ordinary note.

// Limits of a memory.
const (
	// DefaultMemoryFolder is where memories go without --memory-folder.
	DefaultMemoryFolder = "Memory"
	// MaxFactBytes caps a fact: a memory is a short statement; longer
	// text belongs in a note (obsidian_create_note).
	MaxFactBytes = 4096
	// MaxMemoryKeyBytes caps a key (it is the file name).
	MaxMemoryKeyBytes = 120
	// MaxMemoryTags and MaxMemorySourceBytes cap the other properties.
	MaxMemoryTags        = 20
	MaxMemorySourceBytes = 300
	// DefaultMemoryImportance is a new memory's importance when none is
	// given (the neutral middle of 0-10).
	DefaultMemoryImportance = 5
)

// keyRefused are the characters a key may not hold: path separators, and
// what Obsidian or common file systems refuse in a note name.
const keyRefused = `/\:*?"<>|#^[]`

// RememberInput is the obsidian_remember request.
type RememberInput struct {
	Key        string   `json:"key" jsonschema:"Short unique name of the fact, e.g. preferred-editor; it names the file (<memory folder>/<key>.md). Remembering an existing key replaces its fact (case-insensitive match). No path characters (/ \\ : * ? \" < > | # ^ [ ]), no leading dot, at most 120 bytes."`
	Fact       string   `json:"fact" jsonschema:"The fact, in markdown (at most 4096 bytes); it becomes the note's body."`
	Importance *int     `json:"importance,omitempty" jsonschema:"0-10 (default 5 for a new memory; an update without it keeps the old value). obsidian_search's importance_weight ranks by it."`
	Tags       []string `json:"tags,omitempty" jsonschema:"Tags of the memory (leading # optional; an update without tags keeps the old ones)."`
	Source     string   `json:"source,omitempty" jsonschema:"Where the fact comes from, e.g. a conversation or a note path (an update without it keeps the old one)."`
}

// RememberOutput is the obsidian_remember result.
type RememberOutput struct {
	Path         string `json:"path" jsonschema:"Vault-relative path of the memory note."`
	Key          string `json:"key"`
	Created      bool   `json:"created" jsonschema:"A new memory was written (false: an existing one was updated)."`
	CreatedAt    string `json:"created_at" jsonschema:"The memory's created time (kept across updates)."`
	UpdatedAt    string `json:"updated_at" jsonschema:"The memory's updated time (now)."`
	RefreshError string `json:"refresh_error,omitempty" jsonschema:"The write succeeded but the in-memory index could not be reloaded."`
}

// ForgetInput is the obsidian_forget request.
type ForgetInput struct {
	Key string `json:"key" jsonschema:"Key of the memory to delete (case-insensitive)."`
}

// ForgetOutput is the obsidian_forget result.
type ForgetOutput struct {
	Path         string `json:"path" jsonschema:"Vault-relative path of the deleted memory note."`
	Key          string `json:"key"`
	Deleted      bool   `json:"deleted"`
	RefreshError string `json:"refresh_error,omitempty" jsonschema:"The delete succeeded but the in-memory index could not be reloaded."`
}

// MemoryFolder validates a memory folder (--memory-folder): a
// vault-relative folder outside hidden folders; "" is DefaultMemoryFolder.
func MemoryFolder(folder string) (string, error) {
	f := strings.TrimRight(strings.TrimSpace(strings.ReplaceAll(folder, `\`, "/")), "/")
	if f == "" {
		return DefaultMemoryFolder, nil
	}
	if strings.IndexFunc(f, unicode.IsControl) >= 0 {
		return "", fmt.Errorf("memory folder %s: control characters are not allowed", quote(folder))
	}
	clean, ok := vault.CleanRelPath(norm.NFC.String(f))
	if !ok || clean == "." {
		return "", fmt.Errorf("memory folder %s must be a folder inside the vault, without \"..\" and outside hidden folders", quote(folder))
	}
	return clean, nil
}

// memoryKey validates a key and returns it cleaned (trimmed, NFC).
func memoryKey(key string) (string, error) {
	k := norm.NFC.String(strings.TrimSpace(key))
	switch {
	case k == "":
		return "", errors.New("key is empty: give a short name for the fact")
	case !utf8.ValidString(k):
		return "", errors.New("key is not valid UTF-8")
	case len(k) > MaxMemoryKeyBytes:
		return "", fmt.Errorf("key is %d bytes; at most %d are allowed", len(k), MaxMemoryKeyBytes)
	case strings.IndexFunc(k, unicode.IsControl) >= 0:
		return "", fmt.Errorf("key %s: control characters are not allowed", quote(key))
	case strings.ContainsAny(k, keyRefused) || strings.Contains(k, ".."):
		return "", fmt.Errorf("key %s: keys name a file in the memory folder and must not contain path characters (/ \\ ..) or : * ? \" < > | # ^ [ ]; nothing was written", quote(key))
	case strings.HasPrefix(k, "."):
		return "", fmt.Errorf("key %s must not start with a dot (a hidden file)", quote(key))
	}
	return k, nil
}

// checkRemember validates everything but the key.
func checkRemember(in RememberInput) error {
	switch fact := strings.TrimSpace(in.Fact); {
	case fact == "":
		return errors.New("fact is empty: nothing to remember")
	case len(in.Fact) > MaxFactBytes:
		return fmt.Errorf("fact is %d bytes; a memory holds at most %d (store longer text as a note with obsidian_create_note); nothing was written", len(in.Fact), MaxFactBytes)
	}
	if in.Importance != nil && (*in.Importance < 0 || *in.Importance > 10) {
		return fmt.Errorf("importance must be between 0 and 10, got %d", *in.Importance)
	}
	if len(in.Tags) > MaxMemoryTags {
		return fmt.Errorf("%d tags; at most %d are allowed", len(in.Tags), MaxMemoryTags)
	}
	for _, t := range in.Tags {
		if tag := strings.TrimPrefix(strings.TrimSpace(t), "#"); tag == "" || strings.ContainsFunc(tag, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) || r == ',' }) {
			return fmt.Errorf("tag %s: a tag is one word (letters, digits, - _ /), without spaces or commas", quote(t))
		}
	}
	if len(in.Source) > MaxMemorySourceBytes || strings.IndexFunc(in.Source, unicode.IsControl) >= 0 {
		return fmt.Errorf("source must be one line of at most %d bytes", MaxMemorySourceBytes)
	}
	return nil
}

// memoryFolder is the server's memory folder.
func (s *Server) memoryFolder() string {
	f, err := MemoryFolder(s.opts.MemoryFolder)
	if err != nil {
		return DefaultMemoryFolder // New refuses to register the tools then
	}
	return f
}

// findMemory locates the memory with key: a note in the memory folder
// whose frontmatter says type: memory and whose key matches
// case-insensitively, else <folder>/<key>.md. existing is its text (nil
// when there is no file); a file there that is not a memory is an error.
func (s *Server) findMemory(snap *vault.Snapshot, key string) (rel string, existing []byte, err error) {
	folder := s.memoryFolder()
	for _, n := range snap.Notes {
		if t, k := search.MemoryOf(n); t == search.ResultMemory && search.InFolder(n.Path, folder) && strings.EqualFold(k, key) {
			rel = n.Path
			break
		}
	}
	if rel == "" {
		if rel, err = edit.NotePath(path.Join(folder, key+".md")); err != nil {
			return "", nil, err
		}
	}
	switch {
	case snap.RuleHides(rel):
		return "", nil, errHiddenPath(rel)
	case privateTarget(snap, rel):
		return "", nil, errPrivateMemory{rel}
	}
	raw, err := edit.Read(snap.Root, rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return rel, nil, nil
	case err != nil:
		return "", nil, err
	}
	if !isMemoryText(rel, raw) {
		return "", nil, errNotMemory(rel)
	}
	return rel, raw, nil
}

func errNotMemory(rel string) error {
	return fmt.Errorf("%s exists and is not a memory (its frontmatter lacks type: memory); choose another key; nothing was written", rel)
}

// errPrivateMemory: the memory's path holds a note that marked itself
// private. obsidian_remember answers it as a visible note that is not a
// memory (it cannot write there), obsidian_forget as no memory: neither
// says that a private note is there.
type errPrivateMemory struct{ rel string }

func (e errPrivateMemory) Error() string { return errNotMemory(e.rel).Error() }

func (s *Server) remember(ctx context.Context, in RememberInput) (RememberOutput, error) {
	key, err := memoryKey(in.Key)
	if err != nil {
		return RememberOutput{}, err
	}
	if err := checkRemember(in); err != nil {
		return RememberOutput{}, err
	}
	snap := s.engine().Snapshot()
	rel, old, err := s.findMemory(snap, key)
	if err != nil {
		return RememberOutput{}, err
	}
	now := s.engine().Now().UTC().Format(time.RFC3339)
	out := RememberOutput{Path: rel, Key: key, Created: old == nil, CreatedAt: now, UpdatedAt: now}
	set := map[string]any{"type": search.MemoryType, "key": key, "updated": now}
	if old == nil {
		set["created"], set["importance"], set["tags"] = now, DefaultMemoryImportance, []any{}
	} else if c := createdOf(rel, old); c != "" {
		out.CreatedAt = c
	} else {
		set["created"] = now
	}
	if in.Importance != nil {
		set["importance"] = *in.Importance
	}
	if in.Tags != nil {
		tags := make([]any, len(in.Tags))
		for i, t := range in.Tags {
			tags[i] = strings.TrimPrefix(strings.TrimSpace(t), "#")
		}
		set["tags"] = tags
	}
	if in.Source != "" {
		set["source"] = in.Source
	}
	text, err := memoryText(rel, old, set, in.Fact)
	if err != nil {
		return RememberOutput{}, err
	}
	if err := s.checkGrowth(rel, len(text)); err != nil {
		return RememberOutput{}, err
	}
	if old == nil {
		_, err = edit.Create(snap.Root, rel, text, false)
	} else {
		err = edit.Replace(snap.Root, rel, old, text)
	}
	if err != nil {
		return RememberOutput{}, err
	}
	out.RefreshError = s.afterWrite(ctx, rel)
	return out, nil
}

// isMemoryText reports whether a note's text makes it a memory.
func isMemoryText(rel string, raw []byte) bool {
	n, _ := vault.Parse(rel, raw)
	if n == nil {
		return false
	}
	t, _ := search.MemoryOf(n)
	return t == search.ResultMemory
}

// createdOf is the created property of a memory note ("" when missing).
func createdOf(rel string, raw []byte) string {
	n, _ := vault.Parse(rel, raw)
	if n == nil {
		return ""
	}
	switch c := n.Frontmatter["created"].(type) {
	case nil:
		return ""
	case time.Time:
		return c.UTC().Format(time.RFC3339)
	default:
		return fmt.Sprint(c)
	}
}

// memoryText is the memory note: old's frontmatter (other keys kept as
// the user wrote them) with set applied, and fact as the body.
func memoryText(rel string, old []byte, set map[string]any, fact string) ([]byte, error) {
	fe, err := edit.SetFrontmatter(rel, old, set)
	if err != nil {
		return nil, fmt.Errorf("memory %s: %w", rel, err)
	}
	body := strings.TrimSpace(fact) + "\n"
	return edit.ReplaceBody(fe.Text, body)
}

func (s *Server) forget(ctx context.Context, in ForgetInput) (ForgetOutput, error) {
	key, err := memoryKey(in.Key)
	if err != nil {
		return ForgetOutput{}, err
	}
	snap := s.engine().Snapshot()
	rel, old, err := s.findMemory(snap, key)
	if errors.As(err, new(errPrivateMemory)) {
		old, err = nil, nil // as if there were none: nothing to delete, nothing told
	}
	if err != nil {
		return ForgetOutput{}, err
	}
	if old == nil {
		return ForgetOutput{}, fmt.Errorf("no memory with key %s in %s/", quote(key), s.memoryFolder())
	}
	if err := edit.Delete(snap.Root, rel, old); err != nil {
		return ForgetOutput{}, err
	}
	return ForgetOutput{Path: rel, Key: key, Deleted: true, RefreshError: s.afterWrite(ctx, rel)}, nil
}

func rememberInputSchema() *jsonschema.Schema {
	s := inputSchema[RememberInput]()
	p := s.Properties
	p["key"].MinLength, p["key"].MaxLength = ptr(1), ptr(MaxMemoryKeyBytes)
	p["fact"].MinLength, p["fact"].MaxLength = ptr(1), ptr(MaxFactBytes)
	p["importance"].Types, p["importance"].Type = nil, "integer"
	setRange(p["importance"], 0, 10, DefaultMemoryImportance)
	p["tags"].Types, p["tags"].Type = nil, "array"
	p["tags"].MaxItems = ptr(MaxMemoryTags)
	p["source"].MaxLength = ptr(MaxMemorySourceBytes)
	return s
}

func forgetInputSchema() *jsonschema.Schema {
	s := inputSchema[ForgetInput]()
	s.Properties["key"].MinLength, s.Properties["key"].MaxLength = ptr(1), ptr(MaxMemoryKeyBytes)
	return s
}

// addMemoryTools registers obsidian_remember and obsidian_forget (with
// Options.EnableMemory or EnableWrite), serialised with the write tools.
func (s *Server) addMemoryTools() {
	if _, err := MemoryFolder(s.opts.MemoryFolder); err != nil {
		s.logger.Error("memory tools not registered", "err", err)
		return
	}
	addTool(s, &mcp.Tool{
		Name:         "obsidian_remember",
		Title:        "Remember a fact",
		Description:  "Store a short fact as a memory: a markdown note <memory folder>/<key>.md (default folder Memory/) with frontmatter type: memory, key, importance (0-10), tags, source, created and updated, and the fact as its body. The same key replaces the fact (created is kept, updated set to now). Memories are ordinary notes the user sees and edits in Obsidian; obsidian_search returns them with result_type memory (types: [\"memory\"] searches only them). The write is atomic and the index is reloaded at once.",
		Annotations:  writes(false),
		InputSchema:  rememberInputSchema(),
		OutputSchema: outputSchema[RememberOutput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in RememberInput) (*mcp.CallToolResult, RememberOutput, error) {
		s.writeMu.Lock()
		defer s.writeMu.Unlock()
		out, err := s.remember(ctx, in)
		return nil, out, err
	})
	addTool(s, &mcp.Tool{
		Name:         "obsidian_forget",
		Title:        "Forget a fact",
		Description:  "Delete the memory with this key (its note in the memory folder). An unknown key is an error. The index is reloaded at once.",
		Annotations:  writes(false),
		InputSchema:  forgetInputSchema(),
		OutputSchema: outputSchema[ForgetOutput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in ForgetInput) (*mcp.CallToolResult, ForgetOutput, error) {
		s.writeMu.Lock()
		defer s.writeMu.Unlock()
		out, err := s.forget(ctx, in)
		return nil, out, err
	})
}
