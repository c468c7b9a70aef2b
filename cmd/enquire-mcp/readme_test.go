package main

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const (
	readmePath = "../../README.md"
	cliDocPath = "../../docs/cli.md"
)

// readmeProse returns the README's lines outside code fences, with a
// blank line where a fence was (so a fence ends a paragraph).
func readmeProse(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fenced := false
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			out = append(out, "")
			continue
		}
		if fenced {
			out = append(out, "")
			continue
		}
		out = append(out, l)
	}
	return out
}

// readmeShingle is how many words in a row make a repeat (outside code,
// tables and headings): fewer would flag the phrases a reference rightly
// repeats ("in the user cache dir").
const readmeShingle = 8

// TestReadmeHasNoDuplicatedText: the same run of words twice, in one
// paragraph or in two, is a merge left half done (two versions of one
// paragraph, a bullet pasted twice).
func TestReadmeHasNoDuplicatedText(t *testing.T) {
	seen := map[string]int{}
	var words []string
	var lineOf []int
	flush := func() {
		for i := 0; i+readmeShingle <= len(words); i++ {
			key := strings.Join(words[i:i+readmeShingle], " ")
			if first, ok := seen[key]; ok {
				t.Errorf("README line %d repeats line %d: %q", lineOf[i], first, key)
				i += readmeShingle // one report per repeat
				continue
			}
			seen[key] = lineOf[i]
		}
		words, lineOf = nil, nil
	}
	for i, l := range readmeProse(t) {
		s := strings.TrimSpace(l)
		if s == "" || strings.HasPrefix(s, "|") || strings.HasPrefix(s, "#") {
			flush()
			continue
		}
		for _, w := range strings.Fields(strings.ToLower(s)) {
			if w = strings.Trim(w, ".,;:()*`'\"…—-"); w != "" {
				words = append(words, w)
				lineOf = append(lineOf, i+1)
			}
		}
	}
	flush()
}

// TestReadmeBlocksAreWhole: a markdown table has no blank line inside
// (rows after it would not render), and an indented continuation line
// belongs to a list item, not to a paragraph it was pasted under.
func TestReadmeBlocksAreWhole(t *testing.T) {
	lines := readmeProse(t)
	sep := regexp.MustCompile(`^\|[-:| ]+\|$`)
	item := regexp.MustCompile(`^\s*([-*]|\d+\.) `)
	start := "" // first line of the current block
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			if i+2 < len(lines) && strings.HasPrefix(start, "|") && strings.HasPrefix(lines[i+1], "|") && !sep.MatchString(strings.TrimSpace(lines[i+2])) {
				t.Errorf("README line %d: a blank line splits a table (the rows after it are not a table)", i+1)
			}
			start = ""
			continue
		}
		switch {
		case start == "" || item.MatchString(l):
			start = l
		case strings.HasPrefix(l, "  ") && !item.MatchString(start) && !strings.HasPrefix(start, "|"):
			t.Errorf("README line %d: indented line %q continues no list item (block starts %q)", i+1, strings.TrimSpace(l), start)
		}
	}
}

// TestReadmeCommandLineFlags: every flag the command line reference
// (docs/cli.md) gives a command is one that command takes.
func TestReadmeCommandLineFlags(t *testing.T) {
	raw, err := os.ReadFile(cliDocPath)
	if err != nil {
		t.Fatal(err)
	}
	_, ref, ok := strings.Cut(string(raw), "\n```\nenquire-mcp ")
	if !ok {
		t.Fatal("no command synopsis in docs/cli.md")
	}
	ref = "enquire-mcp " + ref
	ref, _, _ = strings.Cut(ref, "\n\n") // the synopsis, up to its first blank line
	known := map[string]bool{}
	for _, c := range commands() {
		known[c.name] = true
	}
	flagsOf := map[string][]string{}
	defined := regexp.MustCompile(`(?m)^\s+-([a-z0-9-]+)`)
	flagsOfCmd := func(name string) []string {
		if f, ok := flagsOf[name]; ok {
			return f
		}
		var out, errb strings.Builder
		run(context.Background(), []string{name, "--help"}, &out, &errb)
		var f []string
		for _, m := range defined.FindAllStringSubmatch(errb.String(), -1) {
			f = append(f, m[1])
		}
		flagsOf[name] = f
		return f
	}
	used := regexp.MustCompile(`--([a-z0-9-]+)`)
	var cmds []string // the commands the current entry names
	var entry string
	check := func() {
		for _, m := range used.FindAllStringSubmatch(entry, -1) {
			ok := m[1] == "help" || m[1] == "version"
			for _, c := range cmds {
				ok = ok || slices.Contains(flagsOfCmd(c), m[1])
			}
			if !ok {
				t.Errorf("README Command line: --%s is not a flag of %s", m[1], strings.Join(cmds, " or "))
			}
		}
	}
	for _, l := range strings.Split(ref, "\n") {
		if rest, ok := strings.CutPrefix(l, "enquire-mcp "); ok {
			check()
			cmds, entry = nil, ""
			for _, part := range strings.Split(rest, " | ") {
				if name, _, _ := strings.Cut(strings.TrimSpace(part), " "); known[name] {
					cmds = append(cmds, name)
				}
			}
		}
		// "[every serve flag]" and "[same index flags as serve]" name the
		// flags by reference, not one by one.
		if strings.Contains(l, "every serve flag") || strings.Contains(l, "flags as serve") {
			cmds = append(cmds, "serve")
		}
		entry += "\n" + l
	}
	check()
	if len(flagsOf) < 10 {
		t.Fatalf("checked %d commands only: the reference was not parsed", len(flagsOf))
	}
}
