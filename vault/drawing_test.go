package vault

import (
	"strings"
	"testing"
)

func TestDrawingText(t *testing.T) {
	const banner = "==⚠  Switch to EXCALIDRAW VIEW in the MORE OPTIONS menu of this document. ⚠== You can decompress Drawing data with the command palette."
	tests := []struct {
		name, path, raw string
		drawing         bool
		want            string // the body, lines joined with "|"
	}{
		{"plugin 1.x layout", "Drawing 1.excalidraw.md",
			"---\nexcalidraw-plugin: parsed\ntags: [excalidraw]\n---\n" + banner + "\n\n# Text Elements\nFetch stage ^e4xwfsLa\n\nGet data from [[EDB]] ^OCfidG4e\n\n%%\n# Drawing\n```json\n{\"type\":\"excalidraw\",\"elements\":[{\"text\":\"Fetch stage\"}]}\n```\n%%",
			true, "|||Fetch stage||Get data from [[EDB]]|||||||"},
		{"plugin 2.x layout, compressed, prose kept", "Ideas.md",
			"---\nexcalidraw-plugin: parsed\n---\nMy own caption here.\n" + banner + "\n\n# Excalidraw Data\n## Text Elements\nMoral sentences are truth\ntalk? ^FvpeeMwW\n\n## Element Links\nabc: [[Somewhere]]\n\n## Embedded Files\n520d1d3e: [[Pasted Image 1.png]]\n\n%%\n## Drawing\n```compressed-json\nN4KAkARALgngDgUwgLgAQQQDwMYEMA2Ar\n```\n%%\nAfter the drawing.",
			true, "My own caption here.|||||Moral sentences are truth|talk?||||||||||||||After the drawing."},
		{"not a drawing: untouched", "Plain.md",
			"# Text Elements\nA note about ^blockid\n%%\n# Drawing\n",
			false, "# Text Elements|A note about ^blockid|%%|# Drawing|"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, _ := Parse(tt.path, []byte(tt.raw))
			if n.IsDrawing() != tt.drawing {
				t.Fatalf("IsDrawing = %v", n.IsDrawing())
			}
			if got := strings.ReplaceAll(n.Body, "\n", "|"); got != tt.want {
				t.Fatalf("body\n got %q\nwant %q", got, tt.want)
			}
			// Every kept line stays on its file line.
			raw := strings.Split(tt.raw, "\n")
			for i, l := range strings.Split(n.Body, "\n") {
				if l != "" && !strings.HasPrefix(raw[n.BodyLine-1+i], l) {
					t.Fatalf("body line %d %q is file line %q", i, l, raw[n.BodyLine-1+i])
				}
			}
		})
	}
}

func TestDrawingLinksComeFromText(t *testing.T) {
	n, _ := Parse("D.excalidraw.md", []byte("# Text Elements\nsee [[EDB]] ^abc\n%%\n# Drawing\n```json\n{\"text\":\"[[Hidden]]\"}\n```\n%%\n"))
	var targets []string
	for _, l := range n.Links {
		targets = append(targets, l.Target)
	}
	if strings.Join(targets, ",") != "EDB" {
		t.Fatalf("links %v, want [EDB]", targets)
	}
}
