package vault

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinkSpansAgreeWithParser checks, on every line of the fixture vault
// where the parser found links, that LinkSpans finds the same links and
// that its offsets point at them.
func TestLinkSpansAgreeWithParser(t *testing.T) {
	snap, err := Load(context.Background(), "../testdata/vault", Options{})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, n := range snap.Notes {
		raw, err := os.ReadFile(filepath.Join(snap.Root, filepath.FromSlash(n.Path)))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.ReplaceAll(string(raw), "\r\n", "\n"), "\n")
		byLine := map[int][]Link{}
		for _, l := range n.Links {
			byLine[l.Line] = append(byLine[l.Line], l)
		}
		for no, want := range byLine {
			got := LinkSpans(lines[no-1], no)
			if len(got) != len(want) {
				t.Fatalf("%s L%d: %d spans, parser found %d", n.Path, no, len(got), len(want))
			}
			for i, sp := range got {
				w := want[i]
				if sp.Raw != w.Raw || sp.Target != w.Target || sp.Heading != w.Heading || sp.Block != w.Block ||
					sp.Alias != w.Alias || sp.Embed != w.Embed || sp.Markdown != w.Markdown {
					t.Errorf("%s L%d: span %+v, parser %+v", n.Path, no, sp.Link, w)
				}
				if lines[no-1][sp.Start:sp.End] != sp.Raw {
					t.Errorf("%s L%d: offsets %d-%d do not hold %q", n.Path, no, sp.Start, sp.End, sp.Raw)
				}
				checked++
			}
		}
	}
	if checked < 60 {
		t.Fatalf("only %d links checked", checked)
	}
}

func TestLinkSpanTargets(t *testing.T) {
	for _, tt := range []struct {
		line, target string
		angle        bool
	}{
		{"see [[ Black Holes #Event|x]] now", "Black Holes", false},
		{"![[Rust Ownership#^borrow-rules]]", "Rust Ownership", false},
		{"| [[Go Concurrency\\|goroutines]] |", "Go Concurrency", false},
		{"[[#Self]]", "", false},
		{"[t](Science/Plate%20Tectonics.md#Evidence)", "Science/Plate%20Tectonics.md", false},
		{"[t](<Science/Plate Tectonics.md>)", "Science/Plate Tectonics.md", true},
		{"`[[Code]]` and [[Real]]", "Real", false},
	} {
		spans := LinkSpans(tt.line, 1)
		if len(spans) != 1 {
			t.Fatalf("%q: %d spans", tt.line, len(spans))
		}
		sp := spans[0]
		if got := tt.line[sp.TargetStart:sp.TargetEnd]; got != tt.target || sp.Angle != tt.angle {
			t.Errorf("%q: target %q angle %v, want %q %v", tt.line, got, sp.Angle, tt.target, tt.angle)
		}
	}
}
