package rankers

// pivoted is the pivoted length normalisation of Singhal, Buckley and
// Mitra (1996): a document's tf-idf weights are divided by
// (1 − slope)·pivot + slope·norm instead of by its own L2 norm, pivot
// being the mean norm of the collection. slope 1 is plain cosine. With
// cosine, a stub of a few words has a small norm, so every weight it holds
// is inflated and it outranks the note that discusses the query; on the
// 13,415-note vault of vault-links the answer trailed a ~94-byte stub in
// most of the queries TF-IDF lost to BM25. The inputs are per-document
// (norm) and per-collection (pivot: a sum and a count), so an incremental
// index can keep them up to date.
func pivoted(norm, pivot, slope float64) float64 {
	return (1-slope)*pivot + slope*norm
}

// meanPositive is the mean of the positive values (0 if none): the pivot
// over the documents that have any weighted term.
func meanPositive(xs []float64) float64 {
	var sum float64
	n := 0
	for _, x := range xs {
		if x > 0 {
			sum += x
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}
