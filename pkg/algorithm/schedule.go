package algorithm

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// Schedule chooses the seed for a shoot, or returns why none fits: a
// *ScheduleError when seeds were rejected, another error when the inputs are
// unusable (no cloud profile, an invalid selector or shoot network, a
// malformed region ConfigMap entry the shoot needs, a bad Config). The shoot's
// own usage is not held against the seeds it is already counted on. It costs
// O(seeds) and does not modify the snapshot.
func Schedule(shoot *v1alpha1.Shoot, snapshot *Snapshot, in Inputs) (string, error) {
	return decideSeed(shoot, snapshot, &in, "")
}

func decideSeed(shoot *v1alpha1.Shoot, snapshot *Snapshot, in *Inputs, exclude string) (string, error) {
	r, err := decide(shoot, snapshot, in, exclude, false)
	if err != nil {
		return "", err
	}
	defer r.release()
	if r.chosen < 0 {
		return "", r.scheduleError()
	}
	return r.verdicts[r.chosen].info.name, nil
}

// FitsElsewhere answers whether the shoot would be placed on a seed other than
// excludeSeed (normally its current one) with the same filters as Schedule,
// for the descheduler, and returns the seed the scheduler would choose once
// the shoot is evicted from excludeSeed (see setAsideLimitedStay). The shoot's
// own usage is not counted against the seeds it is counted on (its current
// seed, or both seeds during a migration).
func FitsElsewhere(shoot *v1alpha1.Shoot, snapshot *Snapshot, in Inputs, excludeSeed string) (string, error) {
	return decideSeed(shoot, snapshot, &in, excludeSeed)
}

// Explain makes the same decision as Schedule and reports it seed by seed.
func Explain(shoot *v1alpha1.Shoot, snapshot *Snapshot, in Inputs) *Explanation {
	return explain(shoot, snapshot, &in, "")
}

// ExplainElsewhere is Explain for FitsElsewhere: excludeSeed is rejected first.
func ExplainElsewhere(shoot *v1alpha1.Shoot, snapshot *Snapshot, in Inputs, excludeSeed string) *Explanation {
	return explain(shoot, snapshot, &in, excludeSeed)
}

func explain(shoot *v1alpha1.Shoot, snapshot *Snapshot, in *Inputs, exclude string) *Explanation {
	e := &Explanation{Shoot: ShootKey(shoot), Strategy: in.Config.strategy()}
	if UsesProtectedToleration(shoot) {
		e.Notes = append(e.Notes, fmt.Sprintf("shoot in namespace %s tolerates %s: admission let it use protected seeds, which are the garden's",
			shoot.Namespace, v1alpha1.SeedTaintProtected))
	}
	r, err := decide(shoot, snapshot, in, exclude, false)
	if err != nil {
		e.Err = err
		return e
	}
	defer r.release()
	for i := range r.verdicts {
		v := &r.verdicts[i]
		res := SeedResult{Seed: v.info.name, Chosen: i == r.chosen, Filter: v.filter, Usage: v.usage}
		if !res.Chosen {
			res.Message = r.message(v)
		}
		if v.hasDistance {
			d := v.distance
			res.Distance = &d
		}
		if v.hasScore {
			s := v.score
			res.Score = &s
		}
		if v.info.hasAllocatable {
			a := v.info.allocatable
			res.Allocatable = &a
		}
		e.Seeds = append(e.Seeds, res)
	}
	slices.SortFunc(e.Seeds, func(a, b SeedResult) int { return strings.Compare(a.Seed, b.Seed) })
	if r.chosen >= 0 {
		e.Seed = r.verdicts[r.chosen].info.name
	} else {
		e.Err = r.scheduleError()
	}
	return e
}

// FormatExplanation writes the long form of an explanation: one line for the
// outcome, then one line per seed.
func FormatExplanation(w io.Writer, e *Explanation) error {
	var b strings.Builder
	if e.Err != nil {
		fmt.Fprintf(&b, "shoot %s (strategy %s): not scheduled: %s\n", e.Shoot, e.Strategy, ShortReason(e.Err))
	} else {
		fmt.Fprintf(&b, "shoot %s (strategy %s): scheduled to seed %s\n", e.Shoot, e.Strategy, e.Seed)
	}
	for _, n := range e.Notes {
		fmt.Fprintf(&b, "  note: %s\n", n)
	}
	width := 0
	for _, s := range e.Seeds {
		width = max(width, len(s.Seed))
	}
	for _, s := range e.Seeds {
		fmt.Fprintf(&b, "  %-*s  ", width, s.Seed)
		if s.Chosen {
			b.WriteString("chosen")
		} else {
			fmt.Fprintf(&b, "%s: %s", s.Filter, s.Message)
		}
		var facts []string
		if s.Distance != nil {
			facts = append(facts, fmt.Sprintf("distance %d", *s.Distance))
		}
		if s.Score != nil {
			facts = append(facts, fmt.Sprintf("score %d", *s.Score))
		}
		if s.Allocatable != nil {
			facts = append(facts, fmt.Sprintf("usage %d/%d", s.Usage, *s.Allocatable))
		} else {
			facts = append(facts, fmt.Sprintf("usage %d", s.Usage))
		}
		fmt.Fprintf(&b, " (%s)\n", strings.Join(facts, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// verdict is one seed's state during a decision. Messages are formatted only
// when asked for, so that a successful decision allocates little.
type verdict struct {
	info        *seedInfo
	filter      Filter // empty while the seed is still a candidate
	usage       int    // shoots counted on the seed, without the shoot itself
	distance    int
	hasDistance bool
	score       int64
	hasScore    bool
}

// verdictPool recycles the per-seed state of decisions, so that a decision
// on a large landscape does not allocate a fresh slice every time.
var verdictPool = sync.Pool{New: func() any { return new([]verdict) }}

// release returns the decision's per-seed state to the pool; r must not be
// used afterwards.
func (r *run) release() {
	if r.buf == nil {
		return
	}
	clear(r.verdicts) // drop the seed pointers
	verdictPool.Put(r.buf)
	r.buf, r.verdicts = nil, nil
}

// run is one decision in progress.
type run struct {
	buf *[]verdict

	shoot    *v1alpha1.Shoot
	snap     *Snapshot
	in       *Inputs
	strategy Strategy
	testing  bool
	nets     shootNetworks

	// tolerations are the shoot's as the algorithm honours them (ShootTolerations).
	tolerations []v1alpha1.Toleration

	cpSelector    labels.Selector
	shootSelector labels.Selector
	cpProviders   []string

	exclude  string
	verdicts []verdict
	chosen   int

	// failStep and failEntering are the plugin that removed the last
	// candidates and how many seeds entered it; failFilter is its most
	// frequent reason.
	failStep     *filterPlugin
	failFilter   Filter
	failEntering int

	// minDistance and regionSource are for the messages of set-aside seeds.
	minDistance     int
	regionSource    string
	distancesListed bool
	ignoreCapacity  bool

	// quoted is what the messages quote from the shoot (text).
	quoted *messageText

	// zones are the zones of the shoot's worker pools (zone selection).
	zones []string
	// defaultDomain is set when the shoot's domain lies under a default
	// domain of a seed left when the domain step began.
	defaultDomain bool
	// source is the seed a bound shoot's control plane leaves when Gardener's
	// migration rules apply (migratesFrom), nil otherwise.
	source *v1alpha1.Seed
}

func decide(shoot *v1alpha1.Shoot, snap *Snapshot, in *Inputs, exclude string, ignoreCapacity bool) (*run, error) {
	if err := in.Config.Validate(); err != nil {
		return nil, fmt.Errorf("invalid scheduling configuration: %w", err)
	}
	if in.CloudProfile == nil {
		return nil, fmt.Errorf("cloud profile %q of shoot %s is not known", CloudProfileNameOf(shoot), ShootKey(shoot))
	}
	if ref := shoot.Spec.CloudProfile; ref != nil && ref.Kind == KindNamespacedCloudProfile && in.CloudProfile.Namespace != shoot.Namespace {
		// A cluster-wide profile of the same name is another profile.
		return nil, fmt.Errorf("shoot %s names NamespacedCloudProfile %s; graft places only shoots of cluster-wide CloudProfiles",
			ShootKey(shoot), Clip(ref.Name))
	}
	if t := in.CloudProfile.Spec.Type; t != "" && t != shoot.Spec.Provider.Type {
		// Gardener's admission refuses such a shoot; deciding it would take
		// another provider's seed selector.
		return nil, fmt.Errorf("shoot %s has provider type %q, but its cloud profile %s is of type %q",
			ShootKey(shoot), Clip(shoot.Spec.Provider.Type), in.CloudProfile.Name, t)
	}
	if n := len(shoot.Spec.Region); n > MaxRegionLength {
		// graft's CRD refuses it; Gardener's API does not bound it, and the
		// MinimalDistance fallback's cost grows with it.
		return nil, fmt.Errorf("region of shoot %s is %d bytes long; no region name is longer than %d", ShootKey(shoot), n, MaxRegionLength)
	}
	if err := checkSelectorBounds(shoot); err != nil {
		// graft's CRD refuses it too; Gardener's API does not bound it.
		return nil, err
	}
	r := &run{
		shoot:          shoot,
		tolerations:    ShootTolerations(shoot),
		snap:           snap,
		in:             in,
		strategy:       in.Config.strategy(),
		testing:        shoot.Spec.Purpose != nil && *shoot.Spec.Purpose == v1alpha1.ShootPurposeTesting,
		exclude:        exclude,
		chosen:         -1,
		ignoreCapacity: ignoreCapacity,
		zones:          workerZones(shoot),
	}
	r.source = r.migratesFrom()
	var err error
	if r.nets, err = parseShootNetworks(shoot); err != nil {
		return nil, err
	}
	if sel := in.CloudProfile.Spec.SeedSelector; sel != nil {
		if r.cpSelector, err = metav1.LabelSelectorAsSelector(&sel.LabelSelector); err != nil {
			return nil, fmt.Errorf("label selector conversion failed for the seedSelector of CloudProfile %q: %w", in.CloudProfile.Name, err)
		}
		r.cpProviders = sel.ProviderTypes
	}
	if sel := shoot.Spec.SeedSelector; sel != nil {
		if r.shootSelector, err = metav1.LabelSelectorAsSelector(&sel.LabelSelector); err != nil {
			return nil, fmt.Errorf("label selector conversion failed for the seedSelector of shoot %s: %w", ShootKey(shoot), err)
		}
	}

	own := snap.shoots.countedAs(shoot)
	r.buf = verdictPool.Get().(*[]verdict)
	if cap(*r.buf) < len(snap.list) {
		*r.buf = make([]verdict, len(snap.list))
	}
	r.verdicts = (*r.buf)[:len(snap.list)]
	for i, info := range snap.list {
		u := snap.shoots.perSeed[info.name]
		if own.has(info.name) {
			u--
		}
		r.verdicts[i] = verdict{info: info, usage: u}
	}

	if !r.runPipeline() {
		return r, nil
	}

	r.setAsideLimitedStay()
	scoring := in.Config.scoring()
	pnsWeight := in.Config.ScoreWeights[ScorePluginPreferNoSchedule]
	if !scoring || pnsWeight <= 0 {
		r.setAsidePreferNoSchedule()
	}
	if (!scoring && r.strategy == StrategyMinimalDistance && !r.testing) ||
		(scoring && in.Config.ScoreWeights[ScorePluginMinimalDistance] > 0) {
		if err := r.computeDistances(); err != nil {
			r.release()
			return nil, err
		}
	}
	if scoring {
		r.chooseByScore()
	} else {
		r.chooseLeastUsed()
	}
	return r, nil
}
