package main

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress shows a bar with rate and ETA when w is a terminal and does
// nothing otherwise (CI logs, pipes).
type progress struct {
	bar *progressbar.ProgressBar
}

func newProgress(w io.Writer, total int, desc string) *progress {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) || total <= 0 {
		return &progress{}
	}
	return &progress{bar: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)}
}

// Set moves the bar to done of total; the total the work reports wins
// over the estimate the bar started with (a resumed embedding run has
// fewer chunks left than the index holds).
func (p *progress) Set(done, total int) {
	if p.bar == nil {
		return
	}
	if total > 0 && int64(total) != p.bar.GetMax64() {
		p.bar.ChangeMax(total)
	}
	_ = p.bar.Set(done)
}

// Done finishes and clears the bar.
func (p *progress) Done() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
