package pass

import (
	"runtime"

	"waverig/harness/results"
)

// finisher runs the CPU half of each kernel (checks against the models, blame,
// repro bundles, parity) and hands its records to emit in kernel order.
//
// In a child process (lavapipe sizes, several devices) it is synchronous: the
// child must have sent every record of a kernel before it announces the next
// one, or a driver crash in the next kernel would lose them. In-process (a GPU
// with size control, where a crash ends the whole run anyway) the checks of
// up to GOMAXPROCS kernels run while the next kernels are dispatched: on the
// H200 the checks were a quarter of a compute run, the dispatches a twentieth.
type finisher struct {
	async bool
	st    *results.Stats
	emit  func(results.Record)
	// counts (child processes) is told each kernel's parity counts after its
	// records: a child the driver kills later has sent them already, so they
	// are not lost with its final stats.
	counts func(results.Stats)
	slots  chan struct{} // bounds the kernels whose buffers are held
	queue  chan *finished
	done   chan struct{}
}

// finished is one kernel's outcome: its records in order, and the parity
// counts of its comparison.
type finished struct {
	recs  []results.Record
	st    results.Stats
	ready chan struct{}
}

func newFinisher(async bool, st *results.Stats, emit func(results.Record)) *finisher {
	f := &finisher{async: async, st: st, emit: emit}
	if async {
		n := runtime.GOMAXPROCS(0)
		f.slots = make(chan struct{}, n)
		f.queue = make(chan *finished, n)
		f.done = make(chan struct{})
		go f.drain()
	}
	return f
}

// submit runs work for the next kernel (now, or on a worker when async).
func (f *finisher) submit(work func(*finished)) {
	item := &finished{ready: make(chan struct{})}
	if !f.async {
		work(item)
		f.flush(item)
		return
	}
	f.slots <- struct{}{} // waits while GOMAXPROCS kernels are unfinished
	f.queue <- item
	go func() {
		defer close(item.ready)
		work(item)
	}()
}

// drain emits the kernels' records in submission order.
func (f *finisher) drain() {
	defer close(f.done)
	for item := range f.queue {
		<-item.ready
		f.flush(item)
		<-f.slots
	}
}

func (f *finisher) flush(item *finished) {
	for _, rec := range item.recs {
		f.st.Add(rec)
		f.emit(rec)
	}
	f.st.ParityCases += item.st.ParityCases
	f.st.ParityLanes += item.st.ParityLanes
	if f.counts != nil && (item.st.ParityCases > 0 || item.st.ParityLanes > 0) {
		f.counts(results.Stats{ParityCases: item.st.ParityCases, ParityLanes: item.st.ParityLanes})
	}
}

// wait returns when every submitted kernel's records have been emitted.
func (f *finisher) wait() {
	if f.async {
		close(f.queue)
		<-f.done
	}
}
