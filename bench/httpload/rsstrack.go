package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// rssTrack samples a process's resident set at a fixed interval while a
// run lasts, so that the report can show whether it grows over the run
// (not only its peak).
type rssTrack struct {
	stop    chan struct{}
	samples chan []int64
}

// trackRSS samples read() now and then every interval until finish.
func trackRSS(read func() int64, every time.Duration) *rssTrack {
	tick := time.NewTicker(every)
	return newRSSTrack(read, tick.C, tick.Stop)
}

// newRSSTrack samples read() now, at every tick and at finish, then calls
// done.
func newRSSTrack(read func() int64, ticks <-chan time.Time, done func()) *rssTrack {
	t := &rssTrack{stop: make(chan struct{}), samples: make(chan []int64, 1)}
	go func() {
		s := []int64{read()}
		for {
			select {
			case <-t.stop:
				s = append(s, read())
				done() // before the samples go out: finish returns after it
				t.samples <- s
				return
			case <-ticks:
				s = append(s, read())
			}
		}
	}()
	return t
}

// finish stops the sampling and returns the samples: the first at the
// start, one per interval, the last at finish.
func (t *rssTrack) finish() []int64 {
	close(t.stop)
	return <-t.samples
}

// reportRSS prints start, peak and end, and the samples about every
// printEvery (so the growth over the run is visible), in MiB.
func reportRSS(out io.Writer, samples []int64, every, printEvery time.Duration) {
	if len(samples) == 0 {
		return
	}
	peak := samples[0]
	for _, s := range samples {
		peak = max(peak, s)
	}
	fmt.Fprintf(out, "server RSS: start %.1f MiB, max %.1f MiB, end %.1f MiB\n", mib(samples[0]), mib(peak), mib(samples[len(samples)-1]))
	step := max(1, int(printEvery/max(every, 1)))
	var b strings.Builder
	for i := 0; i < len(samples); i += step {
		fmt.Fprintf(&b, " %.0f", mib(samples[i]))
	}
	if (len(samples)-1)%step != 0 {
		fmt.Fprintf(&b, " %.0f", mib(samples[len(samples)-1]))
	}
	fmt.Fprintf(out, "server RSS every %s (MiB, then the end):%s\n", printEvery, b.String())
}
