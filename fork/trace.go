package fork

// beatOutcome says what a clock read in Task.beat did, for the trace (see
// trace_on.go): the trace counts them per worker.
type beatOutcome uint8

const (
	beatEarly    beatOutcome = iota // less than a heartbeat since the last promotion
	beatBusy                        // a heartbeat is due, but no worker is idle
	beatEmpty                       // a heartbeat is due, but every record is promoted or spent
	beatPromoted                    // records were offered (the count goes with it)
	nOutcomes
)
