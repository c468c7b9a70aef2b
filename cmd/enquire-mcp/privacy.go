package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/privacy"
	"github.com/enquire-mcp/enquire-mcp/vault"
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
	cfg := privacy.Config{Exclude: p.exclude, Allow: p.allow, MarkerKey: p.markerKey}
	if _, err := privacy.Compile(cfg, nil, false); err != nil {
		return nil, usageError("%v", err) // a bad flag
	}
	return privacy.Load(ctx, root, cfg, privacy.CaseInsensitive(root)) // a bad ignore line: exit 1
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

// Set adds one value.
func (l *listFlag) Set(s string) error {
	*l = append(*l, s)
	return nil
}

// vaultFilter turns rules into the vault loader's filter (nil when they
// hide nothing, so a nil pointer never hides inside an interface).
func vaultFilter(r *privacy.Rules) vault.Filter {
	if r == nil || !r.Active() {
		return nil
	}
	return r
}

// indexPrivacy is the same for an index source.
func indexPrivacy(r *privacy.Rules) index.Privacy {
	if r == nil || !r.Active() {
		return nil
	}
	return r
}

// logPrivacy says once what the rules are and what they hid.
func logPrivacy(logger *slog.Logger, r *privacy.Rules, snap *vault.Snapshot) {
	if r == nil || !r.Active() {
		return
	}
	logger.Info("privacy rules", "rules", r.Describe(), "hidden_notes", snap.Privacy.HiddenNotes, "hidden_files", snap.Privacy.HiddenFiles)
	if len(snap.Notes) == 0 && snap.Privacy.HiddenNotes > 0 {
		logger.Warn("the privacy rules hide every note of the vault: every answer will be empty")
	}
}

// logPurge reports what a sync purged for the privacy rules (counts
// only). A scrub of free pages alone (new rules, nothing to purge) is not
// news to the user.
func logPurge(logger *slog.Logger, st index.Stats) {
	if st.Purged > 0 {
		logger.Info("privacy purge", "files_purged", st.Purged, "index_rewritten", st.PurgedFile)
	}
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

// rereadRules compiles the rules again before a reload, so an edited
// .enquire/ignore applies without a restart. A rule file that became
// invalid fails the reload: the engine in service keeps its rules.
func (l *loaded) rereadRules(ctx context.Context) error {
	rules, err := l.flags.privacy.rules(ctx, l.root)
	if err != nil {
		return fmt.Errorf("reload: %w", err)
	}
	l.vaultOpts.Filter = vaultFilter(rules)
	return nil
}
