package eval

import (
	"math"
	"slices"
	"time"
)

// Metrics are the quality measures of one query, or their mean.
type Metrics struct {
	NDCG10    float64 `json:"ndcg@10"`
	Recall10  float64 `json:"recall@10"`
	Recall100 float64 `json:"recall@100"`
	MRR10     float64 `json:"mrr@10"`
	MAP       float64 `json:"map"`
	Queries   int     `json:"queries"`
}

// Score computes the metrics of one ranked list of document ids against
// graded judgements, with trec_eval's conventions: linear gains
// (grade / log2(rank+1)) for nDCG@10 with the ideal ordering of all
// judgements; a document is relevant when its grade is above 0; MAP over
// the first 1000 ranks.
func Score(ranked []string, rel map[string]int) Metrics {
	var m Metrics
	m.Queries = 1
	positives := 0
	ideal := make([]int, 0, len(rel))
	for _, g := range rel {
		ideal = append(ideal, g)
		if g > 0 {
			positives++
		}
	}
	slices.Sort(ideal)
	slices.Reverse(ideal)
	var dcg, idcg float64
	for i, g := range ideal[:min(10, len(ideal))] {
		idcg += float64(g) / math.Log2(float64(i+2))
	}
	hits := 0
	for i, d := range ranked[:min(1000, len(ranked))] {
		g := rel[d]
		if i < 10 {
			dcg += float64(g) / math.Log2(float64(i+2))
		}
		if g <= 0 {
			continue
		}
		hits++
		m.MAP += float64(hits) / float64(i+1)
		if i < 10 {
			m.Recall10++
			if m.MRR10 == 0 {
				m.MRR10 = 1 / float64(i+1)
			}
		}
		if i < 100 {
			m.Recall100++
		}
	}
	if idcg > 0 {
		m.NDCG10 = dcg / idcg
	}
	if positives > 0 {
		p := float64(positives)
		m.Recall10 /= p
		m.Recall100 /= p
		m.MAP /= p
	} else {
		m.Recall10, m.Recall100, m.MAP = 0, 0, 0
	}
	return m
}

// Mean averages per-query metrics with equal weight per query.
func Mean(all []Metrics) Metrics {
	var m Metrics
	for _, q := range all {
		m.NDCG10 += q.NDCG10
		m.Recall10 += q.Recall10
		m.Recall100 += q.Recall100
		m.MRR10 += q.MRR10
		m.MAP += q.MAP
	}
	if n := float64(len(all)); n > 0 {
		m.NDCG10 /= n
		m.Recall10 /= n
		m.Recall100 /= n
		m.MRR10 /= n
		m.MAP /= n
	}
	m.Queries = len(all)
	return m
}

// Latency summarises query times in milliseconds.
type Latency struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
}

// Summarize computes mean and nearest-rank percentiles.
func Summarize(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	ms := make([]float64, len(ds))
	var sum float64
	for i, d := range ds {
		ms[i] = float64(d) / float64(time.Millisecond)
		sum += ms[i]
	}
	slices.Sort(ms)
	return Latency{Mean: sum / float64(len(ms)), P50: Percentile(ms, 50), P95: Percentile(ms, 95)}
}

// Percentile is the nearest-rank percentile of sorted values.
func Percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}
