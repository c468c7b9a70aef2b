package rankers

// Partial is the error a ranker returns together with its candidates when
// it worked but had to leave part of its answer out: the engine uses the
// candidates and reports Msg in signal_errors, so the loss is never
// silent.
type Partial struct {
	Msg string
}

func (p *Partial) Error() string { return p.Msg }
