package algorithm

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
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
	shootProvs    []string

	exclude  string
	verdicts []verdict
	chosen   int

	// failStep (its first filter) and failEntering describe the step that
	// removed the last candidates and how many seeds entered it; failFilter is
	// that step's most frequent reason.
	failStep     Filter
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
			ShootKey(shoot), clip(ref.Name))
	}
	if t := in.CloudProfile.Spec.Type; t != "" && t != shoot.Spec.Provider.Type {
		// Gardener's admission refuses such a shoot; deciding it would take
		// another provider's seed selector.
		return nil, fmt.Errorf("shoot %s has provider type %q, but its cloud profile %s is of type %q",
			ShootKey(shoot), clip(shoot.Spec.Provider.Type), in.CloudProfile.Name, t)
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
		r.shootProvs = sel.ProviderTypes
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

	// Steps 1-7 and the strategy's region rule, each a filter that fails the
	// decision when it removes the last candidate.
	// A step with aside is a preference: it sets seeds aside only while
	// others are left, and never fails the decision. prepare runs before a
	// step looks at its first seed. A step that is off cannot reject a seed
	// for this shoot (it asks nothing the step checks) and is not run.
	zonesOff := r.needsZones() || len(r.zones) == 0
	_, hasDomain := shootDomain(shoot)
	steps := []struct {
		filters []Filter
		reject  func(v *verdict) Filter
		aside   func(*run, *seedInfo) bool
		prepare func()
		off     bool
	}{
		{filters: []Filter{FilterExcluded}, reject: r.checkExcluded},
		{filters: []Filter{FilterUsable}, reject: r.checkUsable},
		{filters: []Filter{FilterCloudProfileSeedSelector}, reject: r.checkCloudProfileSelector},
		{filters: []Filter{FilterShootSeedSelector}, reject: r.checkShootSelector},
		{filters: []Filter{FilterProvider}, reject: r.checkProvider},
		{filters: []Filter{FilterHighAvailability}, reject: r.checkHighAvailability},
		{filters: []Filter{FilterZoneSelection}, reject: r.checkZoneSelection, off: zonesOff},
		{filters: []Filter{FilterZonePreference}, aside: (*run).missesPreferredZones, off: zonesOff},
		{filters: []Filter{FilterAccessRestrictions}, reject: r.checkAccessRestrictions, off: len(shoot.Spec.AccessRestrictions) == 0},
		{filters: []Filter{FilterDomain}, reject: r.checkDomain, prepare: r.prepareDomain, off: !hasDomain},
		{filters: []Filter{FilterEmergencyStop}, reject: r.checkEmergencyStop},
		{filters: []Filter{FilterMigration}, reject: r.checkMigration, off: r.source == nil},
		{filters: []Filter{FilterEvacuating}, reject: r.checkEvacuating, off: in.Evacuating == nil},
		{filters: []Filter{FilterNetworks, FilterTaints, FilterTolerationRunsOut, FilterCapacity}, reject: r.checkCandidate},
		{filters: []Filter{FilterStrategy}, reject: r.checkStrategy},
		{filters: []Filter{FilterLimitedToleration}, reject: r.checkMoveStaysLonger},
	}
	if exclude == "" {
		// Only a move (FitsElsewhere) must stay longer.
		steps = steps[:len(steps)-1]
	}
	alive := len(r.verdicts)
	if alive == 0 {
		r.failStep = FilterUsable
		return r, nil
	}
	for _, step := range steps {
		if step.off {
			continue
		}
		if step.prepare != nil {
			step.prepare()
		}
		if step.aside != nil {
			alive -= r.setAside(step.aside, step.filters[0])
			continue
		}
		entering := alive
		for i := range r.verdicts {
			v := &r.verdicts[i]
			if v.filter != "" {
				continue
			}
			if f := step.reject(v); f != "" {
				v.filter = f
				alive--
			}
		}
		if alive == 0 {
			r.failStep, r.failEntering = step.filters[0], entering
			r.failFilter = r.mostFrequent(step.filters)
			return r, nil
		}
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

// mostFrequent returns which of the filters rejected the most seeds, the
// first on ties.
func (r *run) mostFrequent(filters []Filter) Filter {
	best, bestCount := filters[0], -1
	for _, f := range filters {
		n := 0
		for i := range r.verdicts {
			if r.verdicts[i].filter == f {
				n++
			}
		}
		if n > bestCount {
			best, bestCount = f, n
		}
	}
	return best
}

func (r *run) checkExcluded(v *verdict) Filter {
	if r.exclude != "" && v.info.name == r.exclude {
		return FilterExcluded
	}
	return ""
}

func (r *run) checkEvacuating(v *verdict) Filter {
	if r.in.Evacuating(v.info.name) {
		return FilterEvacuating
	}
	return ""
}

func (r *run) checkUsable(v *verdict) Filter {
	if v.info.unusable != "" {
		return FilterUsable
	}
	return ""
}

func (r *run) checkCloudProfileSelector(v *verdict) Filter {
	if r.cpSelector != nil && !r.cpSelector.Matches(v.info.labels) {
		return FilterCloudProfileSeedSelector
	}
	return ""
}

func (r *run) checkShootSelector(v *verdict) Filter {
	if r.shootSelector != nil && !r.shootSelector.Matches(v.info.labels) {
		return FilterShootSeedSelector
	}
	return ""
}

func providerAllowed(seedType, shootType string, allowed []string) bool {
	if len(allowed) == 0 {
		return seedType == shootType
	}
	for _, p := range allowed {
		if p == "*" || p == seedType {
			return true
		}
	}
	return false
}

// checkProvider keeps seeds of the shoot's provider type; a providerTypes list
// of the cloud profile or the shoot widens that, and when both are set a seed
// must be allowed by both.
func (r *run) checkProvider(v *verdict) Filter {
	seedType, shootType := v.info.providerType, r.shoot.Spec.Provider.Type
	if len(r.cpProviders) == 0 && len(r.shootProvs) == 0 {
		if seedType != shootType {
			return FilterProvider
		}
		return ""
	}
	if (len(r.cpProviders) > 0 && !providerAllowed(seedType, shootType, r.cpProviders)) ||
		(len(r.shootProvs) > 0 && !providerAllowed(seedType, shootType, r.shootProvs)) {
		return FilterProvider
	}
	return ""
}

func (r *run) needsZones() bool {
	cp := r.shoot.Spec.ControlPlane
	return cp != nil && cp.HighAvailability != nil && cp.HighAvailability.FailureTolerance.Type == v1alpha1.FailureToleranceTypeZone
}

func (r *run) checkHighAvailability(v *verdict) Filter {
	if r.needsZones() && v.info.zones < 3 {
		return FilterHighAvailability
	}
	return ""
}

// checkCandidate is the reference scheduler's candidate step: networks,
// taints, capacity, in this order.
func (r *run) checkCandidate(v *verdict) Filter {
	if (v.info.netErr != "" || v.info.defaultErr != [2]string{}) && r.nets.seedError(v.info) != "" {
		return FilterNetworks
	}
	if r.nets.overlaps(v.info, nil) {
		return FilterNetworks
	}
	runsOut := false
	for _, t := range v.info.taints {
		switch helper.TaintEffectOf(t) {
		case v1alpha1.TaintEffectPreferNoSchedule:
			continue
		case v1alpha1.TaintEffectNoExecute:
			runsOut = runsOut || stayRunsOut(t, r.tolerations)
		}
		if !TaintTolerated(t, r.tolerations) {
			return FilterTaints
		}
	}
	if r.returnsToEvictingSeed(v.info) {
		return FilterTaints
	}
	if runsOut {
		return FilterTolerationRunsOut
	}
	if !r.ignoreCapacity && v.info.hasAllocatable && int64(v.usage) >= v.info.allocatable {
		return FilterCapacity
	}
	return ""
}

// returnsToEvictingSeed reports whether placing the shoot on this seed would
// send it back to the seed it was evicted from while a NoExecute taint there
// still limits its stay. Kubernetes lets such a pod return and be evicted
// again; a control plane move is too expensive for that ping-pong.
func (r *run) returnsToEvictingSeed(info *seedInfo) bool {
	if r.shoot.Annotations[v1alpha1.AnnotationDescheduledFrom] != info.name {
		return false
	}
	return len(LimitedNoExecuteTaints(info.taints, r.tolerations)) > 0
}

// evicted reports whether the shoot is being placed again after the
// descheduler evicted it or, for FitsElsewhere, is about to be evicted from the
// excluded seed; evictedFrom says from which seed.
func (r *run) evicted() bool { return r.evictedFrom() != "" }

func (r *run) evictedFrom() string {
	if r.exclude != "" {
		return r.exclude
	}
	return r.shoot.Annotations[v1alpha1.AnnotationDescheduledFrom]
}

// staysOnlyAWhile reports whether the seed has a NoExecute taint the shoot
// tolerates only with tolerationSeconds.
func (r *run) staysOnlyAWhile(info *seedInfo) bool {
	return len(LimitedNoExecuteTaints(info.taints, r.tolerations)) > 0
}

// checkMoveStaysLonger is FitsElsewhere's rule that a move must leave the
// shoot somewhere it may stay longer than where it is: the descheduler moves
// a shoot only to a seed where no NoExecute taint limits its stay, so that a
// shoot whose limited stay runs out stays where it is rather than going from
// one limited stay to the next. Schedule does not apply it: a shoot without a
// seed is better placed on a limited stay than nowhere.
func (r *run) checkMoveStaysLonger(v *verdict) Filter {
	if r.staysOnlyAWhile(v.info) {
		return FilterLimitedToleration
	}
	return ""
}

// setAsideLimitedStay drops, for an evicted shoot, the candidates whose
// NoExecute taints it tolerates only for a while when a candidate where it
// may stay is left, so that it never bounces between two seeds being drained
// (docs/algorithm.md, step 8). A new shoot is not affected.
func (r *run) setAsideLimitedStay() {
	if r.evicted() {
		r.setAside((*run).staysOnlyAWhile, FilterLimitedToleration)
	}
}

// setAside rejects with filter the candidates that avoid holds for, when at
// least one candidate it does not hold for is left: the rules that call it
// are preferences, which never leave a shoot without a seed on their own.
// avoid is a method expression, so that passing it allocates nothing.
func (r *run) setAside(avoid func(*run, *seedInfo) bool, filter Filter) int {
	kept, avoided := 0, 0
	for i := range r.verdicts {
		v := &r.verdicts[i]
		if v.filter != "" {
			continue
		}
		if avoid(r, v.info) {
			avoided++
		} else {
			kept++
		}
	}
	if kept == 0 || avoided == 0 {
		return 0
	}
	for i := range r.verdicts {
		v := &r.verdicts[i]
		if v.filter == "" && avoid(r, v.info) {
			v.filter = filter
		}
	}
	return avoided
}

func (r *run) checkStrategy(v *verdict) Filter {
	sameType := v.info.providerType == r.shoot.Spec.Provider.Type
	switch {
	case r.testing:
		if !sameType {
			return FilterStrategy
		}
	case r.strategy == StrategySameRegion:
		if !sameType || v.info.region != r.shoot.Spec.Region {
			return FilterStrategy
		}
	}
	return ""
}

func (r *run) untoleratedPreferNoSchedule(info *seedInfo) []v1alpha1.SeedTaint {
	if !info.hasPreferNoSchedule {
		return nil
	}
	return UntoleratedTaints(info.taints, r.tolerations, v1alpha1.TaintEffectPreferNoSchedule)
}

// repelsSoftly reports whether the seed has a PreferNoSchedule taint the shoot
// does not tolerate, without allocating.
func (r *run) repelsSoftly(info *seedInfo) bool {
	if !info.hasPreferNoSchedule {
		return false
	}
	for _, t := range info.taints {
		if helper.TaintEffectOf(t) == v1alpha1.TaintEffectPreferNoSchedule && !TaintTolerated(t, r.tolerations) {
			return true
		}
	}
	return false
}

// setAsidePreferNoSchedule drops candidates with untolerated PreferNoSchedule
// taints when any candidate without them is left.
func (r *run) setAsidePreferNoSchedule() {
	r.setAside((*run).repelsSoftly, FilterPreferNoSchedule)
}

// computeDistances sets the distance of every candidate: from the region
// ConfigMap when it lists at least one candidate's region (a region is at 0
// from itself unless listed; unlisted candidates, and those listed at more
// than 2^31-1, are set aside), otherwise with the Levenshtein fallback.
func (r *run) computeDistances() error {
	configured, source, err := regionDistances(r.in, r.shoot.Spec.Region)
	if err != nil {
		return err
	}
	r.regionSource = source
	if configured != nil {
		for i := range r.verdicts {
			v := &r.verdicts[i]
			if v.filter != "" {
				continue
			}
			d, ok := configured[v.info.region]
			if !ok && v.info.region == r.shoot.Spec.Region {
				d, ok = 0, true
			}
			switch {
			case ok && d > math.MaxInt32:
				// The reference scheduler starts its search for the
				// minimum at 2^31-1: a seed farther away is never a
				// candidate, as if it were not listed.
				v.distance = d
			case ok:
				v.distance, v.hasDistance = d, true
			}
			if v.hasDistance {
				r.distancesListed = true
			}
		}
	}
	if r.distancesListed {
		for i := range r.verdicts {
			v := &r.verdicts[i]
			if v.filter == "" && !v.hasDistance {
				v.filter = FilterMinimalDistance
			}
		}
		return nil
	}
	shootBase, shootOrientation := SplitRegion(r.shoot.Spec.Region)
	shootType := r.shoot.Spec.Provider.Type
	// Seeds share few regions; remember each region's distance for this decision.
	type regionKey struct{ region, provider string }
	cache := map[regionKey]int{}
	entering, alive := 0, 0
	capped := !r.in.Config.scoring()
	for i := range r.verdicts {
		v := &r.verdicts[i]
		if v.filter != "" {
			continue
		}
		k := regionKey{v.info.region, v.info.providerType}
		d, ok := cache[k]
		if !ok {
			d = levenshteinFromParts(shootBase, shootOrientation, shootType, v.info.regionBase, v.info.orientation, v.info.providerType)
			cache[k] = d
		}
		v.distance, v.hasDistance = d, true
		entering++
		// The reference scheduler looks for the minimum from
		// MaxFallbackDistance down: a seed farther away is never a candidate.
		if capped && d > MaxFallbackDistance {
			v.filter = FilterMinimalDistance
			continue
		}
		alive++
	}
	if entering > 0 && alive == 0 {
		r.failStep, r.failFilter, r.failEntering = FilterStrategy, FilterMinimalDistance, entering
	}
	return nil
}

// chooseLeastUsed is the reference choice: the closest candidates (when
// distances were computed), then the least used, then the name sorting first.
func (r *run) chooseLeastUsed() {
	r.minDistance = math.MaxInt
	for i := range r.verdicts {
		v := &r.verdicts[i]
		if v.filter == "" && v.hasDistance && v.distance < r.minDistance {
			r.minDistance = v.distance
		}
	}
	for i := range r.verdicts {
		v := &r.verdicts[i]
		if v.filter == "" && v.hasDistance && v.distance > r.minDistance {
			v.filter = FilterMinimalDistance
		}
	}
	for i := range r.verdicts {
		v := &r.verdicts[i]
		if v.filter != "" {
			continue
		}
		if r.chosen < 0 || r.better(v, &r.verdicts[r.chosen]) {
			r.chosen = i
		}
	}
	for i := range r.verdicts {
		if v := &r.verdicts[i]; v.filter == "" && i != r.chosen {
			v.filter = FilterLeastUsed
		}
	}
}

// better orders candidates by usage, then name.
func (r *run) better(a, b *verdict) bool {
	if a.usage != b.usage {
		return a.usage < b.usage
	}
	return a.info.name < b.info.name
}

// chooseByScore is the GEP-13 scoring step: the weighted sum of the plugins'
// scores, highest first, ties by usage then name.
func (r *run) chooseByScore() {
	w := r.in.Config.ScoreWeights
	minD, maxD, maxUsage := math.MaxInt, math.MinInt, 0
	for i := range r.verdicts {
		v := &r.verdicts[i]
		if v.filter != "" {
			continue
		}
		if v.hasDistance {
			minD, maxD = min(minD, v.distance), max(maxD, v.distance)
		}
		maxUsage = max(maxUsage, v.usage)
	}
	for i := range r.verdicts {
		v := &r.verdicts[i]
		if v.filter != "" {
			continue
		}
		var total int64
		if wd := int64(w[ScorePluginMinimalDistance]); wd > 0 && v.hasDistance {
			s := int64(100)
			if maxD > minD {
				// In floating point: configured distances may be negative
				// and far apart, and integers would overflow.
				s = int64(100 * (float64(maxD) - float64(v.distance)) / (float64(maxD) - float64(minD)))
			}
			total += wd * s
		}
		if wl := int64(w[ScorePluginLeastAllocated]); wl > 0 {
			var s int64
			if v.info.hasAllocatable && v.info.allocatable > 0 {
				s = 100 * (v.info.allocatable - int64(v.usage)) / v.info.allocatable
			} else if !v.info.hasAllocatable {
				s = 100 * int64(maxUsage+1-v.usage) / int64(maxUsage+1)
			}
			total += wl * max(0, min(100, s))
		}
		if wp := int64(w[ScorePluginPreferNoSchedule]); wp > 0 && !r.repelsSoftly(v.info) {
			total += wp * 100
		}
		v.score, v.hasScore = total, true
		if r.chosen < 0 {
			r.chosen = i
			continue
		}
		c := &r.verdicts[r.chosen]
		if v.score > c.score || (v.score == c.score && r.better(v, c)) {
			r.chosen = i
		}
	}
	for i := range r.verdicts {
		if v := &r.verdicts[i]; v.filter == "" && i != r.chosen {
			v.filter = FilterScore
		}
	}
}
