package flow

import "errors"

// Errors a caller may test for with errors.Is. Run wraps each of them with
// the graph's and the task's names, so the message says where it happened.
var (
	// ErrCycle: the graph's strong edges (edges out of tasks that are not
	// condition tasks) form a cycle, so no task on it could ever start. A
	// loop must pass through a condition task.
	ErrCycle = errors.New("cycle not controlled by a condition task")

	// ErrNoSource: the graph has tasks but every one has a predecessor, so
	// none can start.
	ErrNoSource = errors.New("no source task (every task has a predecessor)")

	// ErrForeignTask: an edge was made between tasks of two different graphs
	// (or between a subflow's task and a task outside that subflow). A task
	// belongs to the graph that created it.
	ErrForeignTask = errors.New("edge to a task of another graph")

	// ErrNilTask: Precede or Succeed was given a nil *Task, or AddCondition
	// a nil function.
	ErrNilTask = errors.New("nil task or nil condition function")

	// ErrConditionIndex: a condition task returned an index outside
	// [0, number of its successors).
	ErrConditionIndex = errors.New("condition index out of range")
)
