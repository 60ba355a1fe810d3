package descheduler

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/component/cachetrim"
	"github.com/graft-dev/graft/pkg/garden"
)

// DrainOptions are what Drain needs besides the configuration and clients.
type DrainOptions struct {
	Options
	// Seed is the seed drained: the passes look at it alone.
	Seed string
	// Recorder records the moves' Events; nil records none.
	Recorder record.EventRecorder
	// Live is what is known of the gardenlets that run GEP-39's live flow
	// (as a plan is timed with); nil: the configuration's versions alone.
	Live *algorithm.LiveFlow
	// Observer is told of each move written and each answer the descheduler
	// gives a move it holds; nil: none.
	Observer DrainObserver
	// Scheduling is the strategy and score weights the destinations are
	// chosen with; nil: the configuration's.
	Scheduling *algorithm.Config
	// FieldManager names the drain's writes; "": graft-descheduler.
	FieldManager string
}

// DrainObserver follows a drain as it goes.
type DrainObserver interface {
	// Moved: the move of shoot (as written) off the seed to target was
	// written; target is "" on graft's API, where the scheduler places it.
	Moved(shoot *v1alpha1.Shoot, target string)
	// Held: the descheduler holds the shoot's move; result is its label in
	// graft_descheduler_evictions_total, why says what holds it. It is told
	// once per shoot and reason.
	Held(shoot *v1alpha1.Shoot, result, why string)
}

// DrainResult is what a drain left: the moves it wrote, and the shoots it
// gave up on, by key.
type DrainResult struct {
	// Moved is where each moved shoot went ("" on graft's API).
	Moved map[string]string
	// Left are the shoots no pass can move until the landscape changes (no
	// other seed fits, or the API refused the move): the result, then why.
	Left map[string][2]string
}

// Drain makes graft-descheduler's moves off one seed from this process: the
// daemon's passes, gate, plugins and evictor over informers of its own, on
// the configuration given (the one the daemon's leader publishes), without
// leader election, the seed alone queued. Each pass is the daemon's, so the
// drain keeps the daemon's budgets, pace, windows and deadlines. It returns
// once no move off the seed is left to start: every shoot a plugin wants
// off it was moved, or is held by what only a change of the landscape lifts
// (no other seed fits, the API refused the move), or when ctx ends (with
// what was done so far and ctx's error).
func Drain(ctx context.Context, cfg *configv1alpha1.DeschedulerConfiguration, client garden.Client, kube kubernetes.Interface, o DrainOptions) (*DrainResult, error) {
	if cfg == nil || client == nil || kube == nil || o.Seed == "" {
		return nil, errors.New("drain: a configuration, the clients and a seed are required")
	}
	cfg = cfg.DeepCopy()
	cfg.DryRun = false
	informers, err := client.Informers(cachetrim.Transform)
	if err != nil {
		return nil, fmt.Errorf("drain: %w", err)
	}
	d, err := build(cfg, client, informers, kube, o.Options)
	if err != nil {
		return nil, err
	}
	if o.Scheduling != nil {
		if err := o.Scheduling.Validate(); err != nil {
			return nil, fmt.Errorf("drain: %w", err)
		}
		d.algo = *o.Scheduling
		d.inputsBuilder.Config = d.algo
	}
	w := &drainWatch{seed: o.Seed, observer: o.Observer, answers: map[string]answer{},
		result: &DrainResult{Moved: map[string]string{}, Left: map[string][2]string{}}, told: map[string]string{}}
	d.watcher, d.ev.observer, d.scope = w, w, o.Seed
	d.ev.recorder, d.ev.fieldManager = o.Recorder, o.FieldManager
	if d.ev.recorder == nil {
		d.ev.recorder = discardEvents{}
	}
	if o.Live != nil {
		d.ev.liveFlow = *o.Live
	}
	q := scopedQueue{TypedRateLimitingInterface: d.queue, seed: o.Seed}
	d.queue, d.gate.queue = q, q

	ctx, cancel := context.WithCancel(ctx)
	defer d.shutdownInformers()
	defer cancel()
	_ = d.startInformers(ctx)
	defer d.queue.ShutDown()
	if !cache.WaitForCacheSync(ctx.Done(), d.synced...) {
		return w.result, fmt.Errorf("drain: reading the garden: %w", context.Cause(ctx))
	}
	// The records this drain writes are signed with the daemon's key where
	// it can be read, so that the daemon's repeat guard counts them.
	if key, err := loadRecordKey(ctx, kube, cfg.LeaderElection.ResourceNamespace, true); err == nil {
		d.ev.records = key
	} else {
		klog.FromContext(ctx).Info("Eviction records are signed with a key of this drain alone", "err", err)
	}
	d.gate.recallChurn(d.state.eachShoot)
	return w.result, d.drain(ctx, w)
}

// drain runs the passes over the seed until the watch says it is done.
func (d *Descheduler) drain(ctx context.Context, w *drainWatch) error {
	if d.cfg.Interval.Duration > 0 {
		go d.tick(ctx, func() []string { return []string{w.seed} })
	}
	go func() {
		<-ctx.Done()
		d.queue.ShutDown()
	}()
	d.queue.Add(w.seed)
	for {
		w.startPass()
		if !d.processNextWorkItem(ctx) {
			return ctx.Err()
		}
		switch done, progressed := w.endPass(); {
		case done:
			return nil
		case progressed:
			// What moved may let the next move go: look again at once.
			d.queue.Add(w.seed)
		}
	}
}

// scopedQueue queues the one seed a drain looks at.
type scopedQueue struct {
	workqueue.TypedRateLimitingInterface[string]
	seed string
}

func (q scopedQueue) Add(seed string) {
	if seed == q.seed {
		q.TypedRateLimitingInterface.Add(seed)
	}
}

func (q scopedQueue) AddAfter(seed string, d time.Duration) {
	if seed == q.seed {
		q.TypedRateLimitingInterface.AddAfter(seed, d)
	}
}

// answer is what a pass did with one candidate of the drained seed.
type answer int

const (
	// waiting: a refusal time or a change lifts (budgets, windows, slots),
	// or a write that did not go through.
	waiting answer = iota
	// admitted: the gate gave it a ticket; its write is under way.
	admitted
	// wrote: its move was written.
	wrote
	// stuck: only a change of the landscape lifts it (no fit, refused).
	stuck
)

// drainWatch follows a drain's passes over its seed (passWatcher) and the
// evictor's writes (moveObserver).
type drainWatch struct {
	seed     string
	observer DrainObserver

	mu sync.Mutex
	// lookedAt is set once the pass looked at the seed's moves.
	lookedAt bool
	// answers are the last pass's answers to the seed's candidates.
	answers map[string]answer
	result  *DrainResult
	// told is the last reason the observer was told of, by shoot.
	told map[string]string
}

func (w *drainWatch) startPass() {
	w.mu.Lock()
	w.lookedAt = false
	w.mu.Unlock()
}

// endPass says whether the drain is done: the last pass did not look at the
// seed (no plugin acts on it, or it is gone), or gave every candidate an
// answer only a change lifts; and whether it wrote a move.
func (w *drainWatch) endPass() (done, progressed bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.lookedAt {
		return true, false
	}
	done = true
	for _, a := range w.answers {
		done = done && a == stuck
		progressed = progressed || a == wrote
	}
	return done, progressed
}

func (w *drainWatch) looked(seed string) {
	if seed != w.seed {
		return
	}
	w.mu.Lock()
	w.lookedAt = true
	clear(w.answers)
	w.mu.Unlock()
}

// stuckKinds are the refusals a drain does not wait for: only a change of
// the landscape (a seed freed or added, the shoot changed) lifts them, and
// improving moves are no drain's business.
var stuckKinds = map[refusalKind]bool{refusedNoFit: true, refusedLimitedStay: true, refusedNotImproving: true, refusedChurn: true}

func (w *drainWatch) refused(plugin, seed string, shoot *v1alpha1.Shoot, no *refusal) {
	if seed != w.seed {
		return
	}
	key := algorithm.ShootKey(shoot)
	a := waiting
	if stuckKinds[no.kind] {
		a = stuck
	}
	w.mu.Lock()
	w.answers[key] = a
	if a == stuck {
		w.result.Left[key] = [2]string{no.result(), no.why}
	}
	w.mu.Unlock()
	if no.event == "" {
		// The evictor notes only refusals with an Event.
		w.tell(shoot, no.result(), no.why)
	}
}

func (w *drainWatch) admitted(e eviction) {
	if e.seed.Name != w.seed {
		return
	}
	w.mu.Lock()
	w.answers[algorithm.ShootKey(e.shoot)] = admitted
	w.mu.Unlock()
}

func (w *drainWatch) moved(e eviction, shoot *v1alpha1.Shoot) {
	key := algorithm.ShootKey(shoot)
	w.mu.Lock()
	w.answers[key] = wrote
	w.result.Moved[key] = e.target
	delete(w.result.Left, key)
	delete(w.told, key)
	w.mu.Unlock()
	if w.observer != nil {
		w.observer.Moved(shoot, e.target)
	}
}

func (w *drainWatch) noted(shoot *v1alpha1.Shoot, result, msg string, repeated bool) {
	key := algorithm.ShootKey(shoot)
	if result == ResultRefused {
		// The API refused the move the gate admitted: it is tried again
		// later, but a drain does not wait for the API to change its mind.
		w.mu.Lock()
		if _, ok := w.answers[key]; ok {
			w.answers[key] = stuck
		}
		w.result.Left[key] = [2]string{result, msg}
		w.mu.Unlock()
	}
	if !repeated {
		w.tell(shoot, result, msg)
	}
}

// tell tells the observer why a move is held, once per shoot and reason.
func (w *drainWatch) tell(shoot *v1alpha1.Shoot, result, why string) {
	key := algorithm.ShootKey(shoot)
	w.mu.Lock()
	same := w.told[key] == result+"|"+why
	w.told[key] = result + "|" + why
	w.mu.Unlock()
	if !same && w.observer != nil {
		w.observer.Held(shoot, result, why)
	}
}
