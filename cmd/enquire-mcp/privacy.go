package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/privacy"
)

// privacyFlags are the privacy rules of every command that reads a vault.
type privacyFlags struct {
	exclude, allow listFlag
	markerKey      string
}

func (p *privacyFlags) register(fs *flag.FlagSet) {
	fs.Var(&p.exclude, "exclude-glob", "hide vault paths matching this glob (doublestar: **, *, ?, [..], {a,b}); repeatable")
	fs.Var(&p.allow, "read-paths", "expose only vault paths matching this glob (allow list); repeatable")
	fs.StringVar(&p.markerKey, "private-key", privacy.DefaultMarkerKey, `frontmatter key that hides a note set to true ("" turns the marker off)`)
}

// rules compiles the flags and the vault's .enquire/ignore. A bad pattern
// or ignore line stops the command with an error naming it.
func (p *privacyFlags) rules(ctx context.Context, root string) (*privacy.Rules, error) {
	cfg, err := p.config()
	if err != nil {
		return nil, err
	}
	return privacy.Load(ctx, root, cfg, privacy.CaseInsensitive(root)) // a bad ignore line: exit 1
}

// config is the rules the flags give, checked: a bad pattern is a usage
// error.
func (p *privacyFlags) config() (privacy.Config, error) {
	cfg := privacy.Config{Exclude: p.exclude, Allow: p.allow, MarkerKey: p.markerKey}
	if _, err := privacy.Compile(cfg, nil, false); err != nil {
		return cfg, usageError("%v", err) // a bad flag
	}
	return cfg, nil
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

// Set adds one value.
func (l *listFlag) Set(s string) error {
	*l = append(*l, s)
	return nil
}

// printPrivacy adds the rules and what a sync purged to a command's
// summary (counts only).
func printPrivacy(w io.Writer, r *privacy.Rules, st index.Stats) {
	if r == nil || !r.Active() {
		return
	}
	fmt.Fprintf(w, "  privacy: %s", r.Describe())
	if st.Purged > 0 {
		fmt.Fprintf(w, "; %d files purged", st.Purged)
		if st.PurgedFile {
			fmt.Fprint(w, "; index file rewritten without their text")
		}
	}
	fmt.Fprintln(w)
}
