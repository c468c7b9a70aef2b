package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Set at release time with -ldflags "-X main.version=… -X main.commit=…
// -X main.date=…" (scripts/release.sh); a plain "go build" leaves the
// defaults, and the commit then comes from the VCS stamp Go embeds.
var (
	version = "0.2.0-dev"
	commit  = ""
	date    = ""
)

// versionLine is what --version prints: version, commit, build date,
// and the Go toolchain and platform, so a bug report says exactly which
// binary it is about.
func versionLine() string {
	c, d := commit, date
	if c == "" || d == "" {
		vc, vd := vcsStamp()
		if c == "" {
			c = vc
		}
		if d == "" {
			d = vd
		}
	}
	if c == "" {
		c = "unknown"
	}
	if d == "" {
		d = "unknown"
	}
	return fmt.Sprintf("enquire-mcp %s (commit %s, built %s, %s %s/%s)", version, c, d, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// vcsStamp is the revision and commit time "go build" recorded from the
// repository, if it did (it does not under "go run" or "go test").
func vcsStamp() (rev, when string) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "", ""
	}
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return rev, when
}
