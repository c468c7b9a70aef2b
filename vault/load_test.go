package vault

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var fixtureDir = filepath.Join("..", "testdata", "vault")

var (
	fixtureOnce sync.Once
	fixtureSnap *Snapshot
	fixtureErr  error
)

// fixture loads testdata/vault once; tests must not modify the snapshot.
func fixture(t *testing.T) *Snapshot {
	t.Helper()
	fixtureOnce.Do(func() {
		fixtureSnap, fixtureErr = Load(context.Background(), fixtureDir, Options{})
	})
	if fixtureErr != nil {
		t.Fatalf("Load(%s): %v", fixtureDir, fixtureErr)
	}
	return fixtureSnap
}

// wantLink is one expected link; Embed is read from Raw ("!" prefix) and
// Markdown from the absence of "[[". to is the resolved path ("" =
// UNRESOLVED); a path ending in ".md" is a note, anything else an attachment.
type wantLink struct {
	line                      int
	raw, target               string
	heading, block, alias, to string
	prop                      string // the frontmatter key of a property link
}

// wl is a plain [[Name]] link.
func wl(line int, name, to string) wantLink {
	return wantLink{line: line, raw: "[[" + name + "]]", target: name, to: to}
}

type wantNote struct {
	path     string
	title    string
	aliases  []string
	tags     []string
	fmLines  int  // frontmatter is lines 1..fmLines; 0 = none
	badYAML  bool // frontmatter present but invalid
	headings []Heading
	blocks   []Block
	links    []wantLink
}

func h(line, level int, text string) Heading { return Heading{Level: level, Text: text, Line: line} }

// manifestNotes encodes testdata/MANIFEST.md, note by note.
var manifestNotes = []wantNote{
	{
		path: "Home.md", title: "Home", aliases: []string{"Index", "Start here"}, fmLines: 3,
		headings: []Heading{h(4, 1, "Home"), h(8, 2, "Cooking"), h(14, 2, "Science"), h(20, 2, "Software"), h(28, 2, "Projects"), h(34, 2, "Life")},
		links: []wantLink{
			wl(10, "Sourdough Bread", "Cooking/Sourdough Bread.md"),
			wl(11, "Pasta Carbonara", "Cooking/Pasta Carbonara.md"),
			wl(12, "Knife Skills", "Cooking/Knife Skills.md"),
			wl(16, "Photosynthesis", "Science/Photosynthesis.md"),
			wl(17, "Plate Tectonics", "Science/Plate Tectonics.md"),
			wl(18, "Black Holes", "Science/Black Holes.md"),
			wl(22, "Rust Ownership", "Software/Rust Ownership.md"),
			wl(23, "Go Concurrency", "Software/Go Concurrency.md"),
			wl(24, "Concurrency Patterns", "Software/Concurrency Patterns.md"),
			wl(25, "Kubernetes", "Software/Kubernetes.md"),
			wl(26, "Database Indexing", "Software/Database Indexing.md"),
			wl(30, "Crawler", "Projects/Crawler.md"),
			wl(31, "Log Pipeline", "Projects/Log Pipeline.md"),
			wl(32, "Roadmap", "Projects/Roadmap.md"),
			wl(36, "Tomatoes", "Gardening/Tomatoes.md"),
			wl(37, "Garden Log", "Gardening/Garden Log.md"),
			wl(38, "Kyoto Trip", "Travel/Kyoto Trip.md"),
			wl(39, "Guitar Chords", "Music/Guitar Chords.md"),
			wl(40, "Running", "Health/Running.md"),
		},
	},
	{
		path: "Cooking/Sourdough Bread.md", title: "Sourdough Bread", aliases: []string{"Sourdough", "Levain bread"},
		tags: []string{"cooking/baking", "recipe"}, fmLines: 6,
		headings: []Heading{h(7, 1, "Sourdough Bread"), h(11, 2, "Feeding the starter"), h(15, 2, "Building the levain"), h(19, 2, "Hydration"), h(23, 2, "Proofing"), h(27, 2, "Crumb")},
	},
	{
		path: "Cooking/Pasta Carbonara.md", title: "Pasta Carbonara", tags: []string{"cooking", "recipe"}, fmLines: 5,
		headings: []Heading{h(6, 1, "Pasta Carbonara"), h(10, 2, "Ingredients"), h(18, 2, "Method")},
	},
	{
		path: "Cooking/Knife Skills.md", title: "Knife Skills", tags: []string{"cooking"}, fmLines: 3,
		headings: []Heading{h(4, 1, "Knife Skills"), h(10, 2, "Cuts"), h(16, 2, "Care")},
	},
	{
		path: "Science/Photosynthesis.md", title: "Photosynthesis", aliases: []string{"Photosynthesis process"},
		tags: []string{"science/biology"}, fmLines: 4,
		headings: []Heading{h(5, 1, "Photosynthesis"), h(11, 2, "Light reactions"), h(15, 2, "Calvin cycle"), h(19, 2, "Stomata")},
	},
	{
		path: "Science/Plate Tectonics.md", title: "Plate Tectonics", tags: []string{"science/geology"}, fmLines: 3,
		headings: []Heading{h(4, 1, "Plate Tectonics"), h(8, 2, "Boundaries"), h(14, 2, "Earthquakes"), h(18, 2, "Evidence")},
	},
	{
		path: "Science/Black Holes.md", title: "Black Holes", tags: []string{"science/physics"}, fmLines: 3,
		headings: []Heading{h(4, 1, "Black Holes"), h(10, 2, "Event horizon"), h(14, 2, "Hawking radiation"), h(18, 2, "Observations")},
	},
	{
		path: "Software/Rust Ownership.md", title: "Rust Ownership", aliases: []string{"Borrow checker"},
		tags: []string{"programming/rust"}, fmLines: 5,
		headings: []Heading{h(6, 1, "Rust Ownership"), h(10, 2, "Move semantics"), h(14, 2, "Borrowing"), h(18, 2, "Lifetimes")},
		blocks:   []Block{{"borrow-rules", 16}},
	},
	{
		path: "Software/Go Concurrency.md", title: "Go Concurrency", tags: []string{"programming/go"}, fmLines: 3,
		headings: []Heading{h(4, 1, "Go Concurrency"), h(8, 2, "Goroutines"), h(12, 2, "Channels"), h(16, 2, "Select"), h(20, 2, "sync.WaitGroup")},
	},
	{
		path: "Software/Kubernetes.md", title: "Kubernetes", aliases: []string{"K8s"},
		tags: []string{"devops", "infrastructure"}, fmLines: 4,
		headings: []Heading{h(5, 1, "Kubernetes"), h(9, 2, "Pods"), h(13, 2, "Deployments"), h(17, 2, "Control plane"), h(21, 2, "Nodes")},
	},
	{
		path: "Software/Database Indexing.md", title: "Database Indexing", tags: []string{"programming", "databases"}, fmLines: 3,
		headings: []Heading{h(4, 1, "Database Indexing"), h(8, 2, "B-tree indexes"), h(12, 2, "Covering index"), h(16, 2, "Query planner")},
	},
	{
		path: "Software/Concurrency Patterns.md", title: "Concurrency Patterns", tags: []string{"programming", "patterns"}, fmLines: 3,
		headings: []Heading{h(4, 1, "Concurrency Patterns"), h(8, 2, "Worker pools"), h(12, 2, "Fan-out fan-in"), h(16, 2, "Pipelines"), h(20, 2, "Sharing data safely")},
		links: []wantLink{
			wl(10, "Go Concurrency", "Software/Go Concurrency.md"),
			wl(22, "Rust Ownership", "Software/Rust Ownership.md"),
		},
	},
	{
		path: "Gardening/Tomatoes.md", title: "Tomatoes", tags: []string{"gardening/vegetables"},
		headings: []Heading{h(1, 1, "Tomatoes"), h(5, 2, "Varieties"), h(9, 2, "Staking"), h(13, 2, "Blight"), h(17, 2, "Companion planting")},
	},
	{
		path: "Gardening/Garden Log.md", title: "Garden Log", tags: []string{"gardening", "journal"}, fmLines: 3,
		headings: []Heading{h(4, 1, "Garden Log")},
		links: []wantLink{
			wl(8, "Tomatoes", "Gardening/Tomatoes.md"),
			wl(13, "Ideas", "Archive/Ideas.md"), // no same-folder candidate; 16 characters beat 17
		},
	},
	{
		path: "Travel/Kyoto Trip.md", title: "Kyoto Trip", tags: []string{"travel", "japan"}, fmLines: 3,
		headings: []Heading{h(4, 1, "Kyoto Trip"), h(8, 2, "Itinerary"), h(16, 2, "Ryokan"), h(20, 2, "Tips")},
	},
	{
		path: "Projects/Crawler.md", title: "Crawler", tags: []string{"project"}, fmLines: 4,
		headings: []Heading{h(5, 1, "Crawler"), h(9, 2, "Design"), h(16, 2, "Implementation"), h(20, 2, "Todo")},
		links: []wantLink{
			wl(12, "Concurrency Patterns", "Software/Concurrency Patterns.md"),
			wl(18, "Go Concurrency", "Software/Go Concurrency.md"),
		},
	},
	{
		path: "Projects/Log Pipeline.md", title: "Log Pipeline", tags: []string{"project"}, fmLines: 4,
		headings: []Heading{h(5, 1, "Log Pipeline"), h(11, 2, "Problems so far")},
		links:    []wantLink{wl(9, "Go Concurrency", "Software/Go Concurrency.md")},
	},
	{
		path: "Projects/Ideas.md", title: "Ideas", tags: []string{"ideas"}, fmLines: 3,
		headings: []Heading{h(4, 1, "Ideas")},
	},
	{
		path: "Projects/Roadmap.md", title: "Roadmap", tags: []string{"planning"}, fmLines: 3,
		headings: []Heading{h(4, 1, "Roadmap"), h(8, 2, "First quarter"), h(12, 2, "Second quarter"), h(16, 2, "Later")},
		links:    []wantLink{wl(14, "Ideas", "Projects/Ideas.md")}, // same folder wins
	},
	{
		path: "Archive/Ideas.md", title: "Ideas",
		headings: []Heading{h(1, 1, "Ideas")},
	},
	{
		path: "Archive/Old Plans.md", title: "Old Plans", tags: []string{"archive"}, fmLines: 3,
		headings: []Heading{h(4, 1, "Old Plans")},
		links: []wantLink{
			wl(8, "Ideas", "Archive/Ideas.md"),
			wl(9, "Old Notes/Ancient", "Archive/2019/Old Notes/Ancient.md"), // path suffix
		},
	},
	{
		path: "Archive/2019/Old Notes/Ancient.md", title: "Ancient",
		headings: []Heading{h(1, 1, "Ancient")},
	},
	{
		// Property links: a quoted string, a flow list with an alias, a
		// block list with heading and block links (single-quoted too), two
		// links in one string (one an embed), an unresolved one; an
		// unquoted [[x]] (a YAML list) and a YAML comment are no links.
		path: "Syntax/Properties.md", title: "Properties", fmLines: 11,
		headings: []Heading{h(12, 1, "Properties")},
		links: []wantLink{
			{line: 2, raw: "[[Wikilinks]]", target: "Wikilinks", to: "Syntax/Wikilinks.md", prop: "up"},
			{line: 3, raw: "[[Embeds]]", target: "Embeds", to: "Syntax/Embeds.md", prop: "related"},
			{line: 3, raw: "[[Tags|tag forms]]", target: "Tags", alias: "tag forms", to: "Syntax/Tags.md", prop: "related"},
			{line: 5, raw: "[[Headings and Blocks#Heading level two]]", target: "Headings and Blocks", heading: "Heading level two", to: "Syntax/Headings and Blocks.md", prop: "see"},
			{line: 6, raw: "[[Headings and Blocks#^block-two|block two]]", target: "Headings and Blocks", block: "block-two", alias: "block two", to: "Syntax/Headings and Blocks.md", prop: "see"},
			{line: 7, raw: "[[Code Fences]]", target: "Code Fences", to: "Syntax/Code Fences.md", prop: "pair"},
			{line: 7, raw: "![[Relative Links]]", target: "Relative Links", to: "Syntax/Relative Links.md", prop: "pair"},
			{line: 8, raw: "[[Missing Property Target]]", target: "Missing Property Target", prop: "source"},
		},
	},
	{
		path: "Syntax/Wikilinks.md", title: "Wikilinks", tags: []string{"syntax-test"}, fmLines: 3,
		headings: []Heading{h(4, 1, "Wikilinks"), h(19, 2, "Second section")},
		links: []wantLink{
			wl(8, "Photosynthesis", "Science/Photosynthesis.md"),
			{line: 9, raw: "[[Black Holes|the void]]", target: "Black Holes", alias: "the void", to: "Science/Black Holes.md"},
			{line: 10, raw: "[[Sourdough Bread#Feeding the starter]]", target: "Sourdough Bread", heading: "Feeding the starter", to: "Cooking/Sourdough Bread.md"},
			{line: 11, raw: "[[Rust Ownership#^borrow-rules]]", target: "Rust Ownership", block: "borrow-rules", to: "Software/Rust Ownership.md"},
			{line: 12, raw: "[[Kubernetes#Pods|pods section]]", target: "Kubernetes", heading: "Pods", alias: "pods section", to: "Software/Kubernetes.md"},
			{line: 13, raw: "[[#Second section]]", heading: "Second section", to: "Syntax/Wikilinks.md"},
			wl(14, "K8s", "Software/Kubernetes.md"),
			wl(15, "Tomatoes.md", "Gardening/Tomatoes.md"),
			wl(16, "Science/Plate Tectonics", "Science/Plate Tectonics.md"),
			{line: 17, raw: "[tectonics](Science/Plate%20Tectonics.md)", target: "Science/Plate Tectonics.md", alias: "tectonics", to: "Science/Plate Tectonics.md"},
			wl(21, "Nonexistent Note", ""),
			wl(22, "diagram.png", "Attachments/diagram.png"),
			wl(22, "paper.pdf", "Attachments/paper.pdf"),
			{line: 26, raw: `[[Go Concurrency\|goroutines]]`, target: "Go Concurrency", alias: "goroutines", to: "Software/Go Concurrency.md"},
		},
	},
	{
		path: "Syntax/Embeds.md", title: "Embeds", tags: []string{"syntax-test"}, fmLines: 3,
		headings: []Heading{h(4, 1, "Embeds")},
		links: []wantLink{
			{line: 9, raw: "![[Sourdough Bread]]", target: "Sourdough Bread", to: "Cooking/Sourdough Bread.md"},
			{line: 12, raw: "![[diagram.png]]", target: "diagram.png", to: "Attachments/diagram.png"},
			{line: 15, raw: "![[Black Holes#Event horizon]]", target: "Black Holes", heading: "Event horizon", to: "Science/Black Holes.md"},
			{line: 18, raw: "![[Rust Ownership#^borrow-rules]]", target: "Rust Ownership", block: "borrow-rules", to: "Software/Rust Ownership.md"},
			{line: 21, raw: "![[paper.pdf#page=2]]", target: "paper.pdf", heading: "page=2", to: "Attachments/paper.pdf"},
		},
	},
	{
		// The manifest's optional [x](#local-anchor) self-link (L18) is not
		// recorded: fragment-only markdown links are dropped.
		path: "Syntax/Tags.md", title: "Tags", fmLines: 3,
		tags:     []string{"hash-prefixed", "plain", "inline-tag", "area/sub/leaf", "start-tag", "paren-tag"},
		headings: []Heading{h(4, 1, "Tags"), h(13, 2, "Heading")},
	},
	{
		path: "Syntax/Code Fences.md", title: "Code Fences", tags: []string{"syntax-test"}, fmLines: 3,
		headings: []Heading{h(4, 1, "Code Fences")},
		links:    []wantLink{wl(6, "Photosynthesis", "Science/Photosynthesis.md")},
	},
	{
		path: "Syntax/Headings and Blocks.md", title: "Headings and Blocks", tags: []string{"syntax-test", "NoSpace"}, fmLines: 3,
		headings: []Heading{
			h(4, 1, "Headings and Blocks"), h(8, 2, "Heading level two"), h(10, 3, "Heading level three"),
			h(12, 4, "Heading level four"), h(14, 5, "Heading level five"), h(16, 6, "Heading level six"), h(20, 2, "Closed heading"),
		},
		blocks: []Block{{"block-one", 6}, {"block-two", 26}},
	},
	{
		path: "Syntax/Relative Links.md", title: "Relative Links", tags: []string{"syntax-test"}, fmLines: 3,
		headings: []Heading{h(4, 1, "Relative Links")},
		links: []wantLink{
			wl(8, "./Wikilinks", "Syntax/Wikilinks.md"),
			wl(9, "../Science/Black Holes", "Science/Black Holes.md"),
			wl(10, "../Home", "Home.md"),
		},
	},
	{
		path: "Syntax/Malformed YAML.md", title: "Malformed YAML", fmLines: 6, badYAML: true,
		headings: []Heading{h(7, 1, "Malformed YAML"), h(11, 2, "Quasar observations")},
	},
	{
		path: "Syntax/CRLF Note.md", title: "CRLF Note", tags: []string{"crlf-test"}, fmLines: 3,
		headings: []Heading{h(4, 1, "CRLF heading"), h(10, 2, "Second CRLF heading")},
		links:    []wantLink{wl(8, "Photosynthesis", "Science/Photosynthesis.md")},
	},
	{
		path: "Syntax/Unicode NFD.md", title: "Unicode Normalisation", tags: []string{"unicode"}, fmLines: 4,
		headings: []Heading{h(5, 1, "Unicode Normalisation")},
	},
	{
		path: "Languages/中文笔记.md", title: "中文笔记", tags: []string{"中文", "machine-learning"}, fmLines: 3,
		headings: []Heading{h(4, 1, "中文笔记"), h(8, 2, "神经网络"), h(12, 2, "深度学习")},
		links:    []wantLink{wl(16, "Photosynthesis", "Science/Photosynthesis.md")},
	},
	{path: "Memory/editor-preference.md", title: "editor-preference", fmLines: 9},
	{path: "Memory/coffee-order.md", title: "coffee-order", fmLines: 9},
	{
		path: "Languages/日本語メモ.md", title: "日本語メモ", tags: []string{"日本語", "travel"}, fmLines: 3,
		headings: []Heading{h(4, 1, "日本語メモ"), h(8, 2, "寿司"), h(12, 2, "東京の散歩")},
		links:    []wantLink{wl(14, "Kyoto Trip", "Travel/Kyoto Trip.md")},
	},
	{
		path: "Daily/2026-01-15.md", title: "2026-01-15", tags: []string{"daily"}, fmLines: 4,
		headings: []Heading{h(5, 1, "2026-01-15")},
		links: []wantLink{
			wl(7, "Sourdough Bread", "Cooking/Sourdough Bread.md"),
			wl(8, "Black Holes", "Science/Black Holes.md"),
		},
	},
	{
		path: "Daily/2026-02-01.md", title: "2026-02-01", tags: []string{"daily"}, fmLines: 4,
		headings: []Heading{h(5, 1, "2026-02-01")},
		links: []wantLink{
			wl(7, "Kubernetes", "Software/Kubernetes.md"),
			wl(8, "Database Indexing", "Software/Database Indexing.md"),
			wl(9, "2026-01-15", "Daily/2026-01-15.md"),
		},
	},
	{
		path: "Daily/2026-03-10.md", title: "2026-03-10", tags: []string{"daily", "garden"}, fmLines: 4,
		headings: []Heading{h(5, 1, "2026-03-10")},
		links: []wantLink{
			wl(7, "Tomatoes", "Gardening/Tomatoes.md"),
			wl(7, "Garden Log", "Gardening/Garden Log.md"),
			wl(8, "Kyoto Trip", "Travel/Kyoto Trip.md"),
			wl(9, "2026-02-01", "Daily/2026-02-01.md"),
		},
	},
	{
		path: "Music/Guitar Chords.md", title: "Guitar Chords", tags: []string{"music"}, fmLines: 3,
		headings: []Heading{h(4, 1, "Guitar Chords"), h(8, 2, "Open chords"), h(12, 2, "Barre chords"), h(16, 2, "Capo")},
	},
	{
		path: "Health/Running.md", title: "Running", tags: []string{"health", "running"}, fmLines: 3,
		headings: []Heading{h(4, 1, "Running"), h(8, 2, "Plan"), h(12, 2, "Cadence"), h(16, 2, "Gear")},
	},
	{
		path: "Misc/Frontmatter Only.md", title: "Frontmatter Only", tags: []string{"stub"}, fmLines: 4,
	},
	{
		path: "Misc/Orphan.md", title: "Orphan",
		headings: []Heading{h(1, 1, "Orphan")},
	},
}

func TestLoadFixtureNotes(t *testing.T) {
	s := fixture(t)
	if len(manifestNotes) != 43 {
		t.Fatalf("test table has %d notes, want 43", len(manifestNotes))
	}
	var want []string
	for _, w := range manifestNotes {
		want = append(want, w.path)
	}
	slices.Sort(want)
	var got []string
	for _, n := range s.Notes {
		got = append(got, n.Path)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("note paths =\n%q\nwant\n%q", got, want)
	}
	for _, w := range manifestNotes {
		t.Run(w.path, func(t *testing.T) {
			n := s.Note(w.path)
			if n == nil {
				t.Fatalf("note %q missing", w.path)
			}
			if n.Path != w.path {
				t.Errorf("Path = %q", n.Path)
			}
			if n.Title != w.title {
				t.Errorf("Title = %q, want %q", n.Title, w.title)
			}
			if !eqList(n.Aliases, w.aliases) {
				t.Errorf("Aliases = %q, want %q", n.Aliases, w.aliases)
			}
			if !eqList(n.Tags, w.tags) {
				t.Errorf("Tags = %q, want %q", n.Tags, w.tags)
			}
			switch {
			case w.fmLines == 0 || w.badYAML:
				if n.Frontmatter != nil {
					t.Errorf("Frontmatter = %v, want none", n.Frontmatter)
				}
			case n.Frontmatter == nil:
				t.Errorf("Frontmatter missing")
			}
			if n.BodyLine != w.fmLines+1 {
				t.Errorf("BodyLine = %d, want %d", n.BodyLine, w.fmLines+1)
			}
			if !eqList(n.Headings, w.headings) {
				t.Errorf("Headings =\n%v\nwant\n%v", n.Headings, w.headings)
			}
			if !eqList(n.Blocks, w.blocks) {
				t.Errorf("Blocks = %v, want %v", n.Blocks, w.blocks)
			}
			if len(n.Links) != len(w.links) {
				t.Errorf("%d links, want %d: %+v", len(n.Links), len(w.links), n.Links)
			}
			for i := range min(len(n.Links), len(w.links)) {
				checkLink(t, n.Links[i], w.links[i])
			}
			if n.ModTime.IsZero() {
				t.Errorf("ModTime not set")
			}
			if fi, err := os.Stat(filepath.Join(fixtureDir, filepath.FromSlash(w.path))); err != nil || fi.Size() != n.Size {
				t.Errorf("Size = %d, stat = %v, %v", n.Size, fi, err)
			}
		})
	}
}

func checkLink(t *testing.T, got Link, w wantLink) {
	t.Helper()
	want := Link{
		Raw: w.raw, Target: w.target, Heading: w.heading, Block: w.block, Alias: w.alias,
		Embed: strings.HasPrefix(w.raw, "!"), Markdown: !strings.Contains(w.raw, "[["), Line: w.line, Property: w.prop,
		Kind: LinkUnresolved, Resolved: w.to,
	}
	switch {
	case w.to == "":
	case strings.HasSuffix(w.to, ".md"):
		want.Kind = LinkNote
	default:
		want.Kind = LinkAttachment
	}
	if got != want {
		t.Errorf("link\n got %+v\nwant %+v", got, want)
	}
}

func TestLoadFixtureDetails(t *testing.T) {
	s := fixture(t)

	t.Run("attachments", func(t *testing.T) {
		var got []string
		for _, a := range s.Attachments {
			got = append(got, a.Path)
			if a.ModTime.IsZero() {
				t.Errorf("%s: no ModTime", a.Path)
			}
		}
		if want := []string{"Attachments/diagram.png", "Attachments/paper.pdf"}; !reflect.DeepEqual(got, want) {
			t.Errorf("attachments = %q, want %q", got, want)
		}
		if a := s.Attachments[0]; a.Size != 69 {
			t.Errorf("diagram.png size = %d, want 69", a.Size)
		}
	})

	t.Run("skipped folders", func(t *testing.T) {
		for _, n := range s.Notes {
			if strings.HasPrefix(n.Path, ".") || strings.Contains(n.Path, "/.") || strings.Contains(n.Path, "node_modules") {
				t.Errorf("indexed %s", n.Path)
			}
			if strings.Contains(n.Body, "zzskipme") {
				t.Errorf("%s contains zzskipme", n.Path)
			}
			if n.HasTag("zzskipme-tag") {
				t.Errorf("%s has tag zzskipme-tag", n.Path)
			}
		}
		for _, a := range s.Attachments {
			if strings.Contains(a.Path, ".obsidian") {
				t.Errorf("attachment %s from a skipped folder", a.Path)
			}
		}
	})

	t.Run("warnings", func(t *testing.T) {
		if len(s.Warnings) != 1 || s.Warnings[0].Path != "Syntax/Malformed YAML.md" ||
			!strings.Contains(s.Warnings[0].Message, "malformed frontmatter") {
			t.Errorf("warnings = %v, want one for Syntax/Malformed YAML.md", s.Warnings)
		}
	})

	t.Run("root is the real absolute path", func(t *testing.T) {
		abs, err := filepath.Abs(fixtureDir)
		if err != nil {
			t.Fatal(err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			t.Fatal(err)
		}
		if s.Root != real {
			t.Errorf("Root = %q, want %q", s.Root, real)
		}
	})

	t.Run("other frontmatter", func(t *testing.T) {
		tests := []struct {
			path, key string
			want      any
		}{
			{"Cooking/Sourdough Bread.md", "rating", 5},
			{"Cooking/Sourdough Bread.md", "status", "done"},
			{"Cooking/Pasta Carbonara.md", "status", "draft"},
			{"Cooking/Pasta Carbonara.md", "rating", 4},
			{"Cooking/Knife Skills.md", "tags", "cooking"},
			{"Software/Rust Ownership.md", "status", "done"},
			{"Software/Kubernetes.md", "alias", "K8s"},
			{"Software/Kubernetes.md", "tags", "devops, infrastructure"},
			{"Software/Database Indexing.md", "tags", "programming databases"},
			{"Syntax/Tags.md", "tags", []any{"#hash-prefixed", "plain"}},
			{"Syntax/Unicode NFD.md", "title", "Unicode Normalisation"},
			{"Projects/Crawler.md", "status", "active"},
			{"Projects/Log Pipeline.md", "status", "paused"},
			{"Daily/2026-01-15.md", "date", "2026-01-15"},
			{"Daily/2026-02-01.md", "date", "2026-02-01"},
			{"Daily/2026-03-10.md", "date", "2026-03-10"},
			{"Misc/Frontmatter Only.md", "status", "empty"},
		}
		for _, tt := range tests {
			n := s.Note(tt.path)
			if n == nil {
				t.Errorf("%s missing", tt.path)
				continue
			}
			if got := n.Frontmatter[tt.key]; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s: %s = %#v, want %#v", tt.path, tt.key, got, tt.want)
			}
		}
	})

	t.Run("frontmatter only", func(t *testing.T) {
		n := s.Note("Misc/Frontmatter Only.md")
		if n.Body != "" || n.Size != 35 {
			t.Errorf("Body = %q, Size = %d; want empty and 35", n.Body, n.Size)
		}
	})

	t.Run("CRLF", func(t *testing.T) {
		n := s.Note("Syntax/CRLF Note.md")
		raw, err := os.ReadFile(filepath.Join(fixtureDir, "Syntax", "CRLF Note.md"))
		if err != nil {
			t.Fatal(err)
		}
		if c := strings.Count(string(raw), "\r\n"); c != 12 {
			t.Fatalf("fixture has %d CRLFs, want 12 (was it checked out with autocrlf?)", c)
		}
		if strings.Contains(n.Body, "\r") {
			t.Errorf("Body keeps CRs")
		}
		if n.Size != int64(len(raw)) {
			t.Errorf("Size = %d, want %d", n.Size, len(raw))
		}
	})

	t.Run("NFD text is stored as NFC", func(t *testing.T) {
		n := s.Note("Syntax/Unicode NFD.md")
		if !strings.Contains(n.Body, "caf\u00e9") || !strings.Contains(n.Body, "na\u00efve") {
			t.Errorf("Body lacks the NFC spellings: %q", n.Body)
		}
		if strings.Contains(n.Body, "e\u0301") || strings.Contains(n.Body, "i\u0308") {
			t.Errorf("Body keeps combining marks")
		}
	})

	t.Run("malformed YAML body is indexed", func(t *testing.T) {
		n := s.Note("Syntax/Malformed YAML.md")
		if !strings.Contains(n.Body, "quasar") || strings.Contains(n.Body, "[unclosed") {
			t.Errorf("Body = %q", n.Body)
		}
	})

	t.Run("no fake links or tags from code", func(t *testing.T) {
		for _, n := range s.Notes {
			for _, l := range n.Links {
				if strings.Contains(l.Target, "Fake") {
					t.Errorf("%s: link from code %q", n.Path, l.Raw)
				}
			}
			for _, tag := range []string{"fake-tag", "not-a-tag", "fenced-not-a-tag", "anchor", "local-anchor", "123", "39", "Tags", "Heading"} {
				if slices.Contains(n.Tags, tag) {
					t.Errorf("%s: tag %q", n.Path, tag)
				}
			}
		}
	})

	t.Run("link totals", func(t *testing.T) {
		var total, embeds, unresolved, self int
		for _, n := range s.Notes {
			for _, l := range n.Links {
				total++
				if l.Embed {
					embeds++
				}
				if l.Kind == LinkUnresolved {
					unresolved++
				}
				if l.Resolved == n.Path {
					self++
				}
			}
		}
		// 72: the manifest's 73 minus the optional [x](#local-anchor).
		if total != 72 || embeds != 6 || unresolved != 2 || self != 1 {
			t.Errorf("links %d, embeds %d, unresolved %d, self %d; want 72, 6, 2, 1", total, embeds, unresolved, self)
		}
	})
}

// TestLoadFixtureInbound checks the manifest's inbound-link table: distinct
// source notes per target, self-links and unresolved links excluded.
func TestLoadFixtureInbound(t *testing.T) {
	s := fixture(t)
	want := map[string][]string{
		"Science/Photosynthesis.md":         {"Home.md", "Languages/中文笔记.md", "Syntax/CRLF Note.md", "Syntax/Code Fences.md", "Syntax/Wikilinks.md"},
		"Science/Black Holes.md":            {"Daily/2026-01-15.md", "Home.md", "Syntax/Embeds.md", "Syntax/Relative Links.md", "Syntax/Wikilinks.md"},
		"Software/Go Concurrency.md":        {"Home.md", "Projects/Crawler.md", "Projects/Log Pipeline.md", "Software/Concurrency Patterns.md", "Syntax/Wikilinks.md"},
		"Cooking/Sourdough Bread.md":        {"Daily/2026-01-15.md", "Home.md", "Syntax/Embeds.md", "Syntax/Wikilinks.md"},
		"Software/Rust Ownership.md":        {"Home.md", "Software/Concurrency Patterns.md", "Syntax/Embeds.md", "Syntax/Wikilinks.md"},
		"Gardening/Tomatoes.md":             {"Daily/2026-03-10.md", "Gardening/Garden Log.md", "Home.md", "Syntax/Wikilinks.md"},
		"Software/Kubernetes.md":            {"Daily/2026-02-01.md", "Home.md", "Syntax/Wikilinks.md"},
		"Travel/Kyoto Trip.md":              {"Daily/2026-03-10.md", "Home.md", "Languages/日本語メモ.md"},
		"Science/Plate Tectonics.md":        {"Home.md", "Syntax/Wikilinks.md"},
		"Software/Concurrency Patterns.md":  {"Home.md", "Projects/Crawler.md"},
		"Software/Database Indexing.md":     {"Daily/2026-02-01.md", "Home.md"},
		"Gardening/Garden Log.md":           {"Daily/2026-03-10.md", "Home.md"},
		"Archive/Ideas.md":                  {"Archive/Old Plans.md", "Gardening/Garden Log.md"},
		"Home.md":                           {"Syntax/Relative Links.md"},
		"Cooking/Pasta Carbonara.md":        {"Home.md"},
		"Cooking/Knife Skills.md":           {"Home.md"},
		"Projects/Crawler.md":               {"Home.md"},
		"Projects/Log Pipeline.md":          {"Home.md"},
		"Projects/Roadmap.md":               {"Home.md"},
		"Music/Guitar Chords.md":            {"Home.md"},
		"Health/Running.md":                 {"Home.md"},
		"Projects/Ideas.md":                 {"Projects/Roadmap.md"},
		"Archive/2019/Old Notes/Ancient.md": {"Archive/Old Plans.md"},
		"Syntax/Wikilinks.md":               {"Syntax/Properties.md", "Syntax/Relative Links.md"},
		"Syntax/Embeds.md":                  {"Syntax/Properties.md"},
		"Syntax/Tags.md":                    {"Syntax/Properties.md"},
		"Syntax/Code Fences.md":             {"Syntax/Properties.md"},
		"Syntax/Headings and Blocks.md":     {"Syntax/Properties.md"},
		"Syntax/Relative Links.md":          {"Syntax/Properties.md"},
		"Daily/2026-01-15.md":               {"Daily/2026-02-01.md"},
		"Daily/2026-02-01.md":               {"Daily/2026-03-10.md"},
	}
	got := map[string][]string{}
	attSources := map[string][]string{}
	for _, n := range s.Notes {
		for _, l := range n.Links {
			switch {
			case l.Kind == LinkNote && l.Resolved != n.Path && !slices.Contains(got[l.Resolved], n.Path):
				got[l.Resolved] = append(got[l.Resolved], n.Path)
			case l.Kind == LinkAttachment && !slices.Contains(attSources[l.Resolved], n.Path):
				attSources[l.Resolved] = append(attSources[l.Resolved], n.Path)
			}
		}
	}
	for _, n := range s.Notes {
		slices.Sort(got[n.Path])
		if !eqList(got[n.Path], want[n.Path]) {
			t.Errorf("inbound %s = %q, want %q", n.Path, got[n.Path], want[n.Path])
		}
	}
	wantAtt := map[string][]string{
		"Attachments/diagram.png": {"Syntax/Embeds.md", "Syntax/Wikilinks.md"},
		"Attachments/paper.pdf":   {"Syntax/Embeds.md", "Syntax/Wikilinks.md"},
	}
	for k := range attSources {
		slices.Sort(attSources[k])
	}
	if !reflect.DeepEqual(attSources, wantAtt) {
		t.Errorf("attachment sources = %q, want %q", attSources, wantAtt)
	}
}

func TestLoadFixtureLookup(t *testing.T) {
	s := fixture(t)
	tests := []struct{ ref, want string }{
		{"Software/Kubernetes.md", "Software/Kubernetes.md"},
		{"Kubernetes", "Software/Kubernetes.md"},
		{"K8s", "Software/Kubernetes.md"},
		{"Borrow checker", "Software/Rust Ownership.md"},
		{"Levain bread", "Cooking/Sourdough Bread.md"},
		{"Unicode Normalisation", "Syntax/Unicode NFD.md"},
		{"Ideas", "Archive/Ideas.md"}, // from the root: 16 characters beat 17
		{"中文笔记", "Languages/中文笔记.md"},
		{"Nonexistent Note", ""},
	}
	for _, tt := range tests {
		got := ""
		if n := s.Lookup(tt.ref); n != nil {
			got = n.Path
		}
		if got != tt.want {
			t.Errorf("Lookup(%q) = %q, want %q", tt.ref, got, tt.want)
		}
	}
	if got := s.Suggest("Kubernets", 1); !reflect.DeepEqual(got, []string{"Software/Kubernetes.md"}) {
		t.Errorf("Suggest(Kubernets) = %q", got)
	}
}

func TestLoadWorkersAgree(t *testing.T) {
	summary := func(s *Snapshot) string {
		var b strings.Builder
		for _, n := range s.Notes {
			fmt.Fprintf(&b, "%s %q %q %v %v\n", n.Path, n.Title, n.Tags, n.Headings, n.Links)
		}
		fmt.Fprintln(&b, s.Attachments, s.Warnings)
		return b.String()
	}
	var first string
	for _, w := range []int{1, 3, 16} {
		s, err := Load(context.Background(), fixtureDir, Options{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if got := summary(s); first == "" {
			first = got
		} else if got != first {
			t.Errorf("Workers=%d gives a different snapshot", w)
		}
	}
}

// writeVault creates files (slash paths → content) under a new temp dir.
func writeVault(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		abs := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func notePaths(s *Snapshot) []string {
	var out []string
	for _, n := range s.Notes {
		out = append(out, n.Path)
	}
	return out
}

func attPaths(s *Snapshot) []string {
	var out []string
	for _, a := range s.Attachments {
		out = append(out, a.Path)
	}
	return out
}

// warningFor returns the warnings about path.
func warningFor(s *Snapshot, path string) []Warning {
	var out []Warning
	for _, w := range s.Warnings {
		if w.Path == path {
			out = append(out, w)
		}
	}
	return out
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "note.md")
	if err := os.WriteFile(file, []byte("# x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		root string
		want string
	}{
		{"empty path", "", "no path"},
		{"missing vault", filepath.Join(dir, "does-not-exist"), "no such file"},
		{"file instead of a folder", file, "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Load(context.Background(), tt.root, Options{})
			if err == nil || s != nil {
				t.Fatalf("Load(%q) = %v, %v; want an error", tt.root, s, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not mention %q", err, tt.want)
			}
		})
	}
}

func TestLoadContextCanceled(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel2()
	tests := []struct {
		name string
		ctx  context.Context
		want error
	}{
		{"canceled", canceled, context.Canceled},
		{"deadline exceeded", expired, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Load(tt.ctx, fixtureDir, Options{})
			if s != nil || !errors.Is(err, tt.want) {
				t.Errorf("Load = %v, %v; want nil, %v", s, err, tt.want)
			}
		})
	}
}

func TestLoadSkipsHiddenAndClassifies(t *testing.T) {
	dir := writeVault(t, map[string]string{
		"ok.md":                   "# ok\n",
		"UPPER.MD":                "# upper\n",
		"img.PNG":                 "png",
		"sub/doc.pdf":             "pdf",
		".hidden.md":              "zzskipme",
		".dir/x.md":               "zzskipme",
		".obsidian/workspace.md":  "zzskipme",
		".obsidian/app.json":      "{}",
		"node_modules/x.md":       "zzskipme",
		"a/node_modules/pkg/y.md": "zzskipme",
		"a/.cache/z.md":           "zzskipme",
		"a/.DS_Store":             "zzskipme",
		"a/kept.md":               "[[ok]] [[UPPER]] ![[img.PNG]]",
	})
	s, err := Load(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"UPPER.MD", "a/kept.md", "ok.md"}; !reflect.DeepEqual(notePaths(s), want) {
		t.Errorf("notes = %q, want %q", notePaths(s), want)
	}
	if want := []string{"img.PNG", "sub/doc.pdf"}; !reflect.DeepEqual(attPaths(s), want) {
		t.Errorf("attachments = %q, want %q", attPaths(s), want)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("warnings = %v", s.Warnings)
	}
	if n := s.Note("UPPER.MD"); n == nil || n.Title != "UPPER" {
		t.Errorf("UPPER.MD = %+v", n)
	}
	for _, l := range s.Note("a/kept.md").Links {
		if l.Kind == LinkUnresolved {
			t.Errorf("unresolved %s", l.Raw)
		}
	}
}

func TestLoadSymlinks(t *testing.T) {
	outside := writeVault(t, map[string]string{"secret.md": "# Secret\n", "dir/s.md": "# S\n"})
	dir := writeVault(t, map[string]string{"a.md": "# A\n", "sub/b.md": "# B\n"})
	links := map[string]string{
		"out.md":    filepath.Join(outside, "secret.md"),
		"outdir":    filepath.Join(outside, "dir"),
		"in.md":     filepath.Join(dir, "a.md"),
		"rel.md":    "sub/b.md",
		"subdir":    filepath.Join(dir, "sub"),
		"broken.md": filepath.Join(dir, "missing.md"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Skipf("symlinks not supported here: %v", err)
		}
	}
	s, err := Load(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Symlinks are never followed: inside ones would only duplicate notes
	// walked at their own path, outside ones are off limits.
	if want := []string{"a.md", "sub/b.md"}; !reflect.DeepEqual(notePaths(s), want) {
		t.Errorf("notes = %q, want %q", notePaths(s), want)
	}
	for _, tt := range []struct{ path, msg string }{
		{"out.md", "outside the vault"},
		{"outdir", "outside the vault"},
		{"broken.md", "broken symlink"},
	} {
		w := warningFor(s, tt.path)
		if len(w) != 1 || !strings.Contains(w[0].Message, tt.msg) {
			t.Errorf("warnings for %s = %v, want one containing %q", tt.path, w, tt.msg)
		}
	}
	if len(s.Warnings) != 3 {
		t.Errorf("warnings = %v, want 3", s.Warnings)
	}
	for _, n := range s.Notes {
		if strings.Contains(n.Body, "Secret") {
			t.Errorf("%s leaks a file outside the vault", n.Path)
		}
	}

	t.Run("vault root through a symlink", func(t *testing.T) {
		link := filepath.Join(t.TempDir(), "vault-link")
		if err := os.Symlink(dir, link); err != nil {
			t.Skipf("symlink: %v", err)
		}
		s2, err := Load(context.Background(), link, Options{})
		if err != nil {
			t.Fatal(err)
		}
		real, _ := filepath.EvalSymlinks(dir)
		if s2.Root != real {
			t.Errorf("Root = %q, want %q", s2.Root, real)
		}
		if !reflect.DeepEqual(notePaths(s2), notePaths(s)) {
			t.Errorf("notes = %q, want %q", notePaths(s2), notePaths(s))
		}
	})
}

func TestLoadMaxFileSize(t *testing.T) {
	dir := writeVault(t, map[string]string{
		"small.md":  "# Small\n",
		"exact.md":  strings.Repeat("x", 100),
		"big.md":    strings.Repeat("x", 101),
		"large.pdf": strings.Repeat("x", 500), // attachments are not read
	})
	s, err := Load(context.Background(), dir, Options{MaxFileSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"exact.md", "small.md"}; !reflect.DeepEqual(notePaths(s), want) {
		t.Errorf("notes = %q, want %q", notePaths(s), want)
	}
	if want := []string{"large.pdf"}; !reflect.DeepEqual(attPaths(s), want) {
		t.Errorf("attachments = %q, want %q", attPaths(s), want)
	}
	if w := warningFor(s, "big.md"); len(w) != 1 || !strings.Contains(w[0].Message, "size cap") || len(s.Warnings) != 1 {
		t.Errorf("warnings = %v, want one size-cap warning for big.md", s.Warnings)
	}

	s, err = Load(context.Background(), dir, Options{}) // default cap
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Notes) != 3 || len(s.Warnings) != 0 {
		t.Errorf("default cap: notes %q, warnings %v", notePaths(s), s.Warnings)
	}
}

func TestLoadMalformedYAMLKept(t *testing.T) {
	dir := writeVault(t, map[string]string{
		"bad.md":  "---\ntitle: [oops\n---\n# Still here\n[[good]]\n",
		"good.md": "---\ntitle: Good\n---\n",
	})
	s, err := Load(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := s.Note("bad.md")
	if n == nil {
		t.Fatal("bad.md dropped")
	}
	if n.Title != "bad" || len(n.Headings) != 1 || len(n.Links) != 1 || n.Links[0].Resolved != "good.md" {
		t.Errorf("bad.md = title %q, headings %v, links %+v", n.Title, n.Headings, n.Links)
	}
	if w := warningFor(s, "bad.md"); len(w) != 1 || len(s.Warnings) != 1 || !strings.Contains(w[0].String(), "bad.md: malformed frontmatter") {
		t.Errorf("warnings = %v", s.Warnings)
	}
}

func TestLoadUnreadable(t *testing.T) {
	dir := writeVault(t, map[string]string{
		"ok.md":             "# ok\n",
		"locked.md":         "# locked\n",
		"lockeddir/deep.md": "# deep\n",
	})
	locked := filepath.Join(dir, "locked.md")
	lockedDir := filepath.Join(dir, "lockeddir")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(lockedDir, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.Chmod(locked, 0o644)
		os.Chmod(lockedDir, 0o755)
	})
	if _, err := os.ReadFile(locked); err == nil {
		t.Skip("running with privileges that ignore file permissions (root?)")
	}
	s, err := Load(context.Background(), dir, Options{})
	if err != nil {
		t.Fatalf("Load failed instead of warning: %v", err)
	}
	if want := []string{"ok.md"}; !reflect.DeepEqual(notePaths(s), want) {
		t.Errorf("notes = %q, want %q", notePaths(s), want)
	}
	for _, p := range []string{"locked.md", "lockeddir"} {
		if w := warningFor(s, p); len(w) != 1 || !strings.Contains(w[0].Message, "unreadable") {
			t.Errorf("warnings for %s = %v (all: %v)", p, w, s.Warnings)
		}
	}
}

func TestWalkNFCDuplicates(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"caf\u00e9.md", "cafe\u0301.md"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("# "+name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Skipf("this file system folds Unicode forms: %d files", len(entries))
	}
	s, err := Load(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Notes) != 1 || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0].Message, "Unicode form") {
		t.Fatalf("notes %d, warnings %v", len(s.Notes), s.Warnings)
	}
}
