package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/ocr"
	"github.com/enquire-mcp/enquire-mcp/privacy"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// contentSettings say how a vault is indexed: which files, and what of
// them, are read. They are kept once, in the vault's index (its meta
// table, in the user cache dir, never in the vault), and every command
// follows them; the flags of this name only change them.
type contentSettings struct {
	PDFs        bool          `json:"pdfs"`
	OCR         bool          `json:"ocr"`
	OCRLangs    string        `json:"ocr_langs"`
	OCRMaxPages int           `json:"ocr_max_pages"`
	OCRTimeout  time.Duration `json:"ocr_timeout"`
	MaxFileSize int64         `json:"max_file_size"`
	Exclude     []string      `json:"exclude_globs,omitempty"`
	Allow       []string      `json:"read_paths,omitempty"`
	PrivateKey  string        `json:"private_key"`
}

// defaultContent is what the flags give when none is set.
func defaultContent() contentSettings {
	return contentSettings{OCRLangs: ocr.DefaultLangs, OCRMaxPages: ocr.DefaultMaxPages, OCRTimeout: ocr.DefaultTimeout,
		MaxFileSize: vault.DefaultMaxFileSize, PrivateKey: privacy.DefaultMarkerKey}
}

// normal is s with the defaults in place of zero values (what a caller
// in code leaves unset means the default, as it does to vault.Load).
func (s contentSettings) normal() contentSettings {
	d := defaultContent()
	if s.OCRLangs == "" {
		s.OCRLangs = d.OCRLangs
	}
	if s.OCRMaxPages == 0 {
		s.OCRMaxPages = d.OCRMaxPages
	}
	if s.OCRTimeout == 0 {
		s.OCRTimeout = d.OCRTimeout
	}
	if s.MaxFileSize == 0 {
		s.MaxFileSize = d.MaxFileSize
	}
	return s
}

// contentMode says what a content flag that differs from the kept
// settings does.
type contentMode int

const (
	// contentKeep: the flag changes the kept setting (index, setup, serve,
	// build-embeddings, eval), and the command says so.
	contentKeep contentMode = iota
	// contentOneCall: the flag narrows this call's answer only; the
	// shared index stays as kept (search).
	contentOneCall
	// contentLook: the flag applies to this call, which writes nothing
	// (doctor).
	contentLook
)

// contentState is what resolveContent found and decided.
type contentState struct {
	mode contentMode
	// given are the names of the flags set on the command line.
	given map[string]bool
	done  bool
	// found: the index exists, so its settings rule; stored are they
	// (the defaults, with its PDF setting, for an index that kept none).
	found  bool
	stored contentSettings
	// want is the JSON the index should keep ("" to write nothing).
	want string
	// oneCall are the settings a search narrows its answer to (nil when
	// they are the kept ones).
	oneCall *contentSettings
}

// noteGiven records which flags the command line set: only those may
// differ from the kept settings.
func (v *vaultFlags) noteGiven(fs *flag.FlagSet, mode contentMode) {
	v.content.mode = mode
	v.content.given = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { v.content.given[f.Name] = true })
}

// fromFlags reads the content flags' values.
func (v *vaultFlags) fromFlags() contentSettings {
	return contentSettings{PDFs: v.pdfs, OCR: v.ocr.on, OCRLangs: v.ocr.langs, OCRMaxPages: v.ocr.maxPages, OCRTimeout: v.ocr.timeout,
		MaxFileSize: v.maxFileSize, Exclude: nonEmpty(v.privacy.exclude), Allow: nonEmpty(v.privacy.allow), PrivateKey: v.privacy.markerKey}
}

// nonEmpty drops empty globs: "--exclude-glob ”" clears the kept list.
func nonEmpty(l []string) []string {
	var out []string
	for _, s := range l {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// setContent makes the flags' values s.
func (v *vaultFlags) setContent(s contentSettings) {
	v.pdfs, v.maxFileSize = s.PDFs, s.MaxFileSize
	v.ocr.on, v.ocr.langs, v.ocr.maxPages, v.ocr.timeout = s.OCR, s.OCRLangs, s.OCRMaxPages, s.OCRTimeout
	v.privacy.exclude, v.privacy.allow, v.privacy.markerKey = slices.Clone(s.Exclude), slices.Clone(s.Allow), s.PrivateKey
}

// with is s changed by the flags the command line set.
func (s contentSettings) with(v *vaultFlags, given map[string]bool) contentSettings {
	f := v.fromFlags()
	for name, set := range map[string]func(){
		"include-pdfs":  func() { s.PDFs = f.PDFs },
		"ocr":           func() { s.OCR = f.OCR },
		"ocr-langs":     func() { s.OCRLangs = f.OCRLangs },
		"ocr-max-pages": func() { s.OCRMaxPages = f.OCRMaxPages },
		"ocr-timeout":   func() { s.OCRTimeout = f.OCRTimeout },
		"max-file-size": func() { s.MaxFileSize = f.MaxFileSize },
		"exclude-glob":  func() { s.Exclude = f.Exclude },
		"read-paths":    func() { s.Allow = f.Allow },
		"private-key":   func() { s.PrivateKey = f.PrivateKey },
	} {
		if given[name] {
			set()
		}
	}
	if !s.PDFs && !given["ocr"] {
		s.OCR = false // OCR reads PDFs: turning them off turns it off
	}
	return s
}

// contentFlags are the names of the flags contentSettings hold.
var contentFlags = []string{"include-pdfs", "ocr", "ocr-langs", "ocr-max-pages", "ocr-timeout", "max-file-size", "exclude-glob", "read-paths", "private-key"}

// contentChange is one setting that differs: its words for people, and
// the flags that set it.
type contentChange struct {
	what, now, was string
	args           []string
}

// changes lists what differs from s in t, in a fixed order.
func (s contentSettings) changes(t contentSettings) []contentChange {
	var out []contentChange
	onOff := func(b bool, on, off string) string {
		if b {
			return on
		}
		return off
	}
	list := func(l []string) string {
		if len(l) == 0 {
			return "none"
		}
		return strings.Join(l, ", ")
	}
	globs := func(name string, l []string) []string {
		if len(l) == 0 {
			return []string{"--" + name + "="}
		}
		var a []string
		for _, g := range l {
			a = append(a, "--"+name, g)
		}
		return a
	}
	if s.PDFs != t.PDFs {
		out = append(out, contentChange{"PDFs", onOff(t.PDFs, "included", "excluded"), onOff(s.PDFs, "included", "excluded"), []string{"--include-pdfs=" + fmt.Sprint(t.PDFs)}})
	}
	if s.OCR != t.OCR {
		out = append(out, contentChange{"OCR of scanned PDF pages", onOff(t.OCR, "on", "off"), onOff(s.OCR, "on", "off"), []string{"--ocr=" + fmt.Sprint(t.OCR)}})
	}
	if t.OCR && s.OCRLangs != t.OCRLangs {
		out = append(out, contentChange{"OCR languages", t.OCRLangs, s.OCRLangs, []string{"--ocr-langs", t.OCRLangs}})
	}
	if t.OCR && s.OCRMaxPages != t.OCRMaxPages {
		out = append(out, contentChange{"OCR pages per PDF", fmt.Sprint(t.OCRMaxPages), fmt.Sprint(s.OCRMaxPages), []string{"--ocr-max-pages", fmt.Sprint(t.OCRMaxPages)}})
	}
	if t.OCR && s.OCRTimeout != t.OCRTimeout {
		out = append(out, contentChange{"OCR timeout per page", t.OCRTimeout.String(), s.OCRTimeout.String(), []string{"--ocr-timeout", t.OCRTimeout.String()}})
	}
	if s.MaxFileSize != t.MaxFileSize {
		out = append(out, contentChange{"max file size", fmt.Sprintf("%d bytes", t.MaxFileSize), fmt.Sprintf("%d bytes", s.MaxFileSize), []string{"--max-file-size", fmt.Sprint(t.MaxFileSize)}})
	}
	if !slices.Equal(s.Exclude, t.Exclude) {
		out = append(out, contentChange{"exclude globs", list(t.Exclude), list(s.Exclude), globs("exclude-glob", t.Exclude)})
	}
	if !slices.Equal(s.Allow, t.Allow) {
		out = append(out, contentChange{"read paths", list(t.Allow), list(s.Allow), globs("read-paths", t.Allow)})
	}
	if s.PrivateKey != t.PrivateKey {
		q := func(k string) string {
			if k == "" {
				return "off"
			}
			return fmt.Sprintf("%q", k)
		}
		out = append(out, contentChange{"private marker key", q(t.PrivateKey), q(s.PrivateKey), []string{"--private-key", t.PrivateKey}})
	}
	return out
}

// storedContent reads the settings the vault's index keeps; found is
// false when there is no index to follow (none yet, --no-index, or one
// that cannot be read: its open says why).
func (v *vaultFlags) storedContent(ctx context.Context, root string) (s contentSettings, raw string, found bool) {
	s = defaultContent()
	if v.noIndex {
		return s, "", false
	}
	path, err := v.indexPath(root)
	if err != nil {
		return s, "", false
	}
	c, err := index.ReadContent(ctx, path)
	if err != nil {
		return s, "", false
	}
	if c.Value == "" {
		s.PDFs = c.PDFs
		return s, "", true
	}
	if err := json.Unmarshal([]byte(c.Value), &s); err != nil {
		// Unreadable: the flags are kept in its place.
		return defaultContent(), "", false
	}
	return s.normal(), c.Value, true
}

// resolveContent sets the content flags from the settings the index
// keeps and the flags given, as the command's mode says; note hears one
// line per setting that changes or applies to this call only. Once per
// command: later calls do nothing.
func (v *vaultFlags) resolveContent(ctx context.Context, root string, note func(string)) error {
	c := &v.content
	if c.done {
		return nil
	}
	c.done = true
	inCode := c.given == nil
	if inCode {
		// Flags set by a caller in code, not parsed: every value is meant.
		c.given = map[string]bool{}
		for _, name := range contentFlags {
			c.given[name] = true
		}
	}
	stored, raw, found := v.storedContent(ctx, root)
	c.found, c.stored = found, stored
	eff := stored.with(v, c.given)
	if !found {
		eff = defaultContent().with(v, c.given)
	}
	if inCode {
		eff = eff.normal()
	}
	switch {
	case c.mode == contentKeep:
		if found {
			for _, ch := range stored.changes(eff) {
				line := fmt.Sprintf("settings: %s now %s (was: %s)", ch.what, ch.now, ch.was)
				if ch.what == "PDFs" {
					line += "; rebuilding the index"
				}
				note(line)
			}
		}
		b, err := json.Marshal(eff)
		if err != nil {
			return fmt.Errorf("content settings: %w", err)
		}
		c.want = string(b)
		v.setContent(eff)
	case c.mode == contentOneCall && found:
		c.want = raw // what a heal of the index keeps again
		v.setContent(stored)
		changes := stored.changes(eff)
		for _, ch := range changes {
			if narrows(ch, eff, stored) {
				note(fmt.Sprintf("settings: %s %s for this search only (the index keeps %s)", ch.what, ch.now, ch.was))
			} else {
				note(fmt.Sprintf("settings: %s: %s for this search too, as the index keeps it (enquire-mcp index --vault %s %s changes that)", ch.what, ch.was, shellQuote(root), shellJoin(ch.args)))
			}
		}
		if len(changes) > 0 {
			c.oneCall = &eff
		}
	default:
		v.setContent(eff)
	}
	return nil
}

// narrows reports whether a search can apply change ch by leaving hits
// out: it cannot show what the index does not hold.
func narrows(ch contentChange, eff, stored contentSettings) bool {
	switch ch.what {
	case "PDFs":
		return !eff.PDFs
	case "max file size":
		return eff.MaxFileSize < stored.MaxFileSize
	case "exclude globs", "read paths", "private marker key":
		return true
	}
	return false
}

// changeArgs are the flags that make the kept settings those of this
// call (doctor's fix lines: "" when they are the kept ones).
func (v *vaultFlags) changeArgs() []string {
	c := &v.content
	if !c.found {
		return nil
	}
	var args []string
	for _, ch := range c.stored.changes(v.fromFlags()) {
		args = append(args, ch.args...)
	}
	return args
}

// keepContent writes the settings the index should keep into ix when it
// holds others (a new, rebuilt or healed index holds none).
func (v *vaultFlags) keepContent(ctx context.Context, ix *index.Index) error {
	want := v.content.want
	if want == "" {
		return nil
	}
	have, err := ix.Content(ctx)
	if err != nil || have == want {
		return err
	}
	return ix.KeepContent(want)
}

// oneCallFilter is what a search leaves out of its answer for the
// settings it narrows to (nil: nothing).
func (v *vaultFlags) oneCallFilter(ctx context.Context, root string) (func(path, kind string, n *vault.Note) bool, error) {
	eff := v.content.oneCall
	if eff == nil {
		return nil, nil
	}
	pf := privacyFlags{exclude: eff.Exclude, allow: eff.Allow, markerKey: eff.PrivateKey}
	rules, err := pf.rules(ctx, root)
	if err != nil {
		return nil, err
	}
	return func(path, kind string, n *vault.Note) bool {
		switch {
		case kind == "pdf" && !eff.PDFs:
			return true
		case n != nil && n.Size > eff.MaxFileSize:
			return true
		case rules.Excluded(path):
			return true
		}
		return n != nil && rules.Private(n)
	}, nil
}

// locationArgs are the flags that find the vault's index (the start of a
// command line that works on the same index).
func (v *vaultFlags) locationArgs(root string) []string {
	args := []string{"--vault", root}
	if v.indexFile != "" {
		args = append(args, "--index-file", v.indexFile)
	}
	return args
}

// describe says s in one line (doctor's settings check).
func (s contentSettings) describe() string {
	parts := []string{"PDFs excluded"}
	if s.PDFs {
		parts[0] = "PDFs included"
		if s.OCR {
			parts = append(parts, fmt.Sprintf("OCR on (%s, %d pages per PDF, %s per page)", s.OCRLangs, s.OCRMaxPages, s.OCRTimeout))
		} else {
			parts = append(parts, "OCR off")
		}
	}
	parts = append(parts, fmt.Sprintf("max file size %d bytes", s.MaxFileSize))
	if len(s.Exclude) > 0 {
		parts = append(parts, "exclude globs "+strings.Join(s.Exclude, ", "))
	}
	if len(s.Allow) > 0 {
		parts = append(parts, "read paths "+strings.Join(s.Allow, ", "))
	}
	if s.PrivateKey == "" {
		parts = append(parts, "private marker off")
	} else {
		parts = append(parts, fmt.Sprintf("private marker %q", s.PrivateKey))
	}
	return strings.Join(parts, "; ")
}
