// Package vault models an Obsidian vault: it walks the folder, parses every
// note once (frontmatter, tags, headings, block ids, links) and resolves links
// the way Obsidian does. The result is an immutable [Snapshot] that many
// goroutines may read at once.
package vault

import (
	"strings"
	"time"
)

// Kinds of searchable documents.
const (
	KindMarkdown = "md"
	KindPDF      = "pdf"
)

// Note is one parsed markdown file, or the text of a PDF (Kind "pdf"). A
// Note is never modified after the snapshot holding it has been returned
// by [Load].
type Note struct {
	// Path is vault-relative, slash-separated and NFC-normalised.
	Path string
	// Kind is KindMarkdown or KindPDF.
	Kind string
	// Title is the frontmatter title, else the file name without ".md".
	Title string
	// Aliases come from the frontmatter keys aliases/alias.
	Aliases []string
	// FrontmatterTags and InlineTags are without the leading '#', in order
	// of first appearance; Tags is their union (case-insensitively unique).
	FrontmatterTags []string
	InlineTags      []string
	Tags            []string
	// Frontmatter is the decoded YAML (nil when absent or malformed).
	Frontmatter map[string]any
	Headings    []Heading
	Blocks      []Block
	Links       []Link
	// Body is the text after the frontmatter with LF line endings; its first
	// line is file line BodyLine (1-based).
	Body     string
	BodyLine int
	// Pages are where each PDF page starts in Body (nil for markdown).
	Pages   []Page
	Size    int64
	ModTime time.Time
	// Hash identifies the file's content (see HashBytes).
	Hash string
	// OCRKey names the OCR settings the text of a PDF's scanned pages
	// was read with ("" when none were read; see PDFOCR).
	OCRKey string
}

// Page is one PDF page: its number and the Body line it starts on.
type Page struct {
	Number int
	Line   int
	// OCR says the page's text was read from its image (a scanned page).
	OCR bool
}

// PageAt returns the PDF page holding a Body line (0 for markdown).
func (n *Note) PageAt(line int) int {
	page := 0
	for _, p := range n.Pages {
		if p.Line > line {
			break
		}
		page = p.Number
	}
	return page
}

// PageOCR reports whether the text of a PDF page was read by OCR.
func (n *Note) PageOCR(number int) bool {
	for _, p := range n.Pages {
		if p.Number == number {
			return p.OCR
		}
	}
	return false
}

// Heading is an ATX heading outside code.
type Heading struct {
	Level int    `json:"level"`
	Text  string `json:"text"`
	Line  int    `json:"line"`
}

// Block is a block id ("^id" at the end of a paragraph line).
type Block struct {
	ID   string `json:"id"`
	Line int    `json:"line"`
}

// LinkKind says what a link resolved to.
type LinkKind string

// Resolution kinds of a link.
const (
	LinkUnresolved LinkKind = "unresolved"
	LinkNote       LinkKind = "note"
	LinkAttachment LinkKind = "attachment"
)

// Link is a [[wikilink]], ![[embed]] or a markdown link to a local file in
// the body, or a [[wikilink]] or ![[embed]] in a frontmatter value (a
// property link). Property links come first, in file order.
type Link struct {
	// Raw is the link as written, e.g. "![[Note#Part|shown]]".
	Raw string
	// Target is the path part ("" for a same-note link like [[#Heading]]).
	Target string
	// Heading and Block are the "#heading" and "#^block" parts, if any.
	Heading string
	Block   string
	// Alias is the display text after '|' (or of a markdown link).
	Alias    string
	Embed    bool
	Markdown bool
	// Line is the 1-based file line: a frontmatter line for a property
	// link.
	Line int
	// Property is the frontmatter key whose value holds the link ("" for
	// a link in the body).
	Property string
	// Kind and Resolved (a vault-relative path) are set by the resolver.
	Kind     LinkKind
	Resolved string
}

// Attachment is a non-markdown file of the vault (PDF, image, …).
type Attachment struct {
	Path    string
	Size    int64
	ModTime time.Time
}

// Warning is a problem met while loading that did not stop the load.
type Warning struct {
	Path    string `json:"path"`
	Message string `json:"message"`
	// Retry marks a failure that says nothing about the file (the PDF
	// extractor could not start, the run was cancelled): a cache must not
	// remember it, so the next run tries again.
	Retry bool `json:"retry,omitempty"`
}

func (w Warning) String() string { return w.Path + ": " + w.Message }

// Name is the file name without folder and extension (what bare wikilinks
// match).
func (n *Note) Name() string { return baseName(n.Path) }

// Folder is the vault-relative folder of the note ("" at the root).
func (n *Note) Folder() string { return folderOf(n.Path) }

// HasTag reports whether the note carries tag (case-insensitive, without
// '#'); a parent tag matches its nested tags ("a" matches "a/b").
func (n *Note) HasTag(tag string) bool {
	tag = strings.ToLower(strings.TrimPrefix(tag, "#"))
	for _, t := range n.Tags {
		t = strings.ToLower(t)
		if t == tag || strings.HasPrefix(t, tag+"/") {
			return true
		}
	}
	return false
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		p = p[i+1:]
	}
	if i := strings.LastIndexByte(p, '.'); i > 0 {
		p = p[:i]
	}
	return p
}

func folderOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}
