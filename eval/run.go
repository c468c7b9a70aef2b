package eval

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
)

// Depth is how many notes each query returns (the most obsidian_search
// allows), enough for Recall@100.
const Depth = search.MaxLimit

// Config is one search configuration to evaluate.
type Config struct {
	// Signals to fuse; nil means every available signal (the default
	// obsidian_search behaviour).
	Signals    []string `json:"signals"`
	GraphBoost bool     `json:"graph_boost"`
	// Weights override the engine's RRF weights (nil: the engine's).
	Weights map[string]float64 `json:"weights,omitempty"`
	// RecencyWeight and ImportanceWeight blend freshness and frontmatter
	// importance into the ranking (0: the plain fused ranking).
	RecencyWeight    float64 `json:"recency_weight,omitempty"`
	ImportanceWeight float64 `json:"importance_weight,omitempty"`
}

// Name is a short label such as "tfidf+bm25 boost".
func (c Config) Name() string {
	s := "all"
	if c.Signals != nil {
		s = strings.Join(c.Signals, "+")
	}
	if len(c.Weights) > 0 {
		keys := make([]string, 0, len(c.Weights))
		for k := range c.Weights {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s=%g", k, c.Weights[k]))
		}
		s += " w(" + strings.Join(parts, ",") + ")"
	}
	if c.RecencyWeight > 0 {
		s += fmt.Sprintf(" recency=%g", c.RecencyWeight)
	}
	if c.ImportanceWeight > 0 {
		s += fmt.Sprintf(" importance=%g", c.ImportanceWeight)
	}
	if c.GraphBoost {
		return s + " +graph"
	}
	return s
}

// Report is the outcome of one configuration.
type Report struct {
	Config Config `json:"config"`
	Metrics
	Latency     Latency            `json:"latency_ms"`
	SignalsUsed []string           `json:"signals_used"`
	Categories  map[string]Metrics `json:"categories,omitempty"`
	// Unavailable names requested signals the engine does not have; such
	// a configuration is not run.
	Unavailable []string  `json:"unavailable,omitempty"`
	Rankings    []Ranking `json:"-"`
}

// Ranking is one query's ranked document ids and scores.
type Ranking struct {
	QueryID string
	Docs    []string
	Scores  []float64
}

// Run evaluates one configuration: every query goes through
// search.Engine.Search exactly as obsidian_search sends it (note
// granularity, limit 100), snippets aside. progress, if set, is called
// after each query.
func Run(ctx context.Context, eng *search.Engine, ds *Dataset, cfg Config, progress func(done, total int)) (*Report, error) {
	rep := &Report{Config: cfg}
	for _, s := range cfg.Signals {
		if !slices.Contains(eng.Signals(), s) {
			rep.Unavailable = append(rep.Unavailable, s)
		}
	}
	if len(rep.Unavailable) > 0 {
		return rep, nil
	}
	var per []Metrics
	byCat := map[string][]Metrics{}
	var lat []time.Duration
	used := map[string]bool{}
	for i, q := range ds.Queries {
		start := time.Now()
		res, err := eng.Search(ctx, search.Request{Query: q.Text, Limit: Depth, GraphBoost: cfg.GraphBoost,
			Signals: cfg.Signals, Weights: cfg.Weights, NoSnippets: true,
			RecencyWeight: &cfg.RecencyWeight, ImportanceWeight: &cfg.ImportanceWeight})
		lat = append(lat, time.Since(start))
		r := Ranking{QueryID: q.ID}
		switch {
		case err == nil:
			for _, h := range res.Hits {
				r.Docs = append(r.Docs, ds.DocID(h.Path))
				r.Scores = append(r.Scores, h.Score)
			}
			for _, s := range res.SignalsUsed {
				used[s] = true
			}
		case ctx.Err() != nil:
			return nil, ctx.Err()
		default:
			// A query the engine rejects (say, only stop words) scores 0,
			// as an empty ranking would.
		}
		m := Score(r.Docs, ds.Qrels[q.ID])
		per = append(per, m)
		if q.Category != "" {
			byCat[q.Category] = append(byCat[q.Category], m)
		}
		rep.Rankings = append(rep.Rankings, r)
		if progress != nil {
			progress(i+1, len(ds.Queries))
		}
	}
	rep.Metrics = Mean(per)
	rep.Latency = Summarize(lat)
	for _, s := range []string{rankers.SignalBM25, rankers.SignalTFIDF, rankers.SignalEmbeddings, rankers.SignalFeedback} {
		if used[s] {
			rep.SignalsUsed = append(rep.SignalsUsed, s)
		}
	}
	if len(byCat) > 0 {
		rep.Categories = map[string]Metrics{}
		for c, ms := range byCat {
			rep.Categories[c] = Mean(ms)
		}
	}
	return rep, nil
}

// Matrix lists every non-empty combination of the known signals, each
// without and with the graph boost, followed by the default
// configuration (all available signals, boost on).
func Matrix() []Config {
	known := []string{rankers.SignalTFIDF, rankers.SignalBM25, rankers.SignalEmbeddings}
	var out []Config
	for mask := 1; mask < 1<<len(known); mask++ {
		var sigs []string
		for i, s := range known {
			if mask&(1<<i) != 0 {
				sigs = append(sigs, s)
			}
		}
		out = append(out, Config{Signals: sigs}, Config{Signals: sigs, GraphBoost: true})
	}
	slices.SortStableFunc(out, func(a, b Config) int { return len(a.Signals) - len(b.Signals) })
	return out
}

// WriteRun writes rankings in TREC run format (qid Q0 docid rank score
// tag). Document ids are escaped with EscapeDocID, so a note path with
// spaces stays one field ("My%20Note.md"); whitespace-separated qrels are
// read back through UnescapeDocID. Scores are made strictly decreasing within a query (ties nudged by
// 1e-9) so that tools sorting by score keep our order.
func WriteRun(w io.Writer, rankings []Ranking, tag string) error {
	for _, r := range rankings {
		prev := 0.0
		for i, d := range r.Docs {
			s := r.Scores[i]
			if i > 0 && s >= prev {
				s = prev - 1e-9
			}
			prev = s
			if _, err := fmt.Fprintf(w, "%s Q0 %s %d %.9f %s\n", EscapeDocID(r.QueryID), EscapeDocID(d), i+1, s, tag); err != nil {
				return err
			}
		}
	}
	return nil
}
