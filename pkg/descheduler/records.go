package descheduler

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
	"github.com/graft-dev/graft/pkg/algorithm"
)

// RecordKeySecret is the Secret, in the leader election namespace, that
// holds the key graft-descheduler signs its eviction records with. The first
// replica to start creates it; every replica and every later leader reads it.
const RecordKeySecret = "graft-descheduler-record-key"

// recordKeyField is the Secret's data key.
const recordKeyField = "key"

// recordKey signs graft.dev/evictions entries. A tenant writes its shoot's
// annotations at will on Gardener, where no admission knows graft's: a
// forged record of an eviction from the seed it sits on would hold it there
// for repeatEvictionWindow (the repeat guard), after every descheduler
// start. Only records signed with this key, for this shoot, count.
type recordKey []byte

// newRecordKey is a random key, used until the durable one is read and in
// dry-run mode without one: records it signs verify only in this process.
func newRecordKey() recordKey {
	k := make(recordKey, 32)
	if _, err := rand.Read(k); err != nil {
		panic(fmt.Sprintf("reading random bytes: %v", err)) // never fails on Linux
	}
	return k
}

// mac is the signature of the record for the shoot of that UID: a copy on
// another shoot, or with another seed, cause or time, does not verify.
func (k recordKey) mac(uid types.UID, e helper.Eviction) string {
	h := hmac.New(sha256.New, k)
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s", uid, e.Seed, e.Cause, e.At.UTC().Format(time.RFC3339))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:16])
}

// sign returns the record with its signature, its time to the second as the
// annotation keeps it.
func (k recordKey) sign(uid types.UID, e helper.Eviction) helper.Eviction {
	e.At = e.At.UTC().Truncate(time.Second)
	e.MAC = k.mac(uid, e)
	return e
}

// verified returns the shoot's eviction records that this descheduler (or
// another holding the key) wrote for it, each once; the others are dropped.
// A tenant can copy a genuine record as often as its annotation holds: each
// copy verifies, but it is still one move.
func (k recordKey) verified(shoot *v1alpha1.Shoot) []helper.Eviction {
	all := helper.Evictions(shoot)
	out := all[:0:0]
	for _, e := range all {
		if e.MAC == "" || !hmac.Equal([]byte(e.MAC), []byte(k.mac(shoot.UID, e))) {
			continue
		}
		if !slices.ContainsFunc(out, func(o helper.Eviction) bool { return o.MAC == e.MAC }) {
			out = append(out, e)
		}
	}
	return out
}

// loadRecordKey reads the key from RecordKeySecret in namespace, creating
// the Secret with a random key when it does not exist (another replica may
// create it at the same time: then its key is read). In dry-run mode, which
// writes nothing, a missing Secret gives a key of this process only.
func loadRecordKey(ctx context.Context, kube kubernetes.Interface, namespace string, dryRun bool) (recordKey, error) {
	secrets := kube.CoreV1().Secrets(namespace)
	for range 2 {
		s, err := secrets.Get(ctx, RecordKeySecret, metav1.GetOptions{})
		switch {
		case err == nil:
			k := s.Data[recordKeyField]
			if len(k) < 16 {
				return nil, fmt.Errorf("secret %s/%s holds a key of %d bytes under %q; at least 16 are needed (delete it to have a new one made)", namespace, RecordKeySecret, len(k), recordKeyField)
			}
			return k, nil
		case !apierrors.IsNotFound(err):
			return nil, fmt.Errorf("reading the eviction record key, secret %s/%s: %w", namespace, RecordKeySecret, err)
		case dryRun:
			return newRecordKey(), nil
		}
		_, err = secrets.Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: RecordKeySecret, Namespace: namespace, Labels: map[string]string{"app.kubernetes.io/managed-by": Name}},
			Type:       corev1.SecretTypeOpaque,
			Data:       map[string][]byte{recordKeyField: newRecordKey()},
		}, metav1.CreateOptions{FieldManager: Name})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("creating the eviction record key, secret %s/%s: %w", namespace, RecordKeySecret, err)
		}
		// Read what was stored, ours or the other replica's.
	}
	return nil, fmt.Errorf("secret %s/%s was created but cannot be read back", namespace, RecordKeySecret)
}

// evictedBefore reports whether the shoot's graft.dev/evictions records an
// eviction from seed for cause within repeatEvictionWindow, and until when
// that holds another one back. The record is written, signed, with each
// eviction, so the guard survives restarts and failovers; a record without
// the descheduler's signature for this shoot (a tenant's) counts for nothing. A record dated further in
// the future than clocks drift apart was not written by an eviction and
// holds nothing back: a shoot cannot buy itself a stay that way.
func (g *gate) evictedBefore(shoot *v1alpha1.Shoot, seed, cause string) (time.Time, bool) {
	window := g.repeatWindow()
	if window <= 0 {
		return time.Time{}, false
	}
	now := g.clock.Now()
	// A shoot cannot have been evicted from its seed after it came there: a
	// later record was written by someone else (on Gardener, where no
	// admission guards graft's annotations, its tenant) and holds nothing
	// back.
	arrived, known := g.state.arrivedOn(algorithm.ShootKey(shoot), seed)
	var until time.Time
	for _, e := range g.records.verified(shoot) {
		if e.Seed != seed || e.Cause != cause || e.At.After(now.Add(maxClockSkew)) || known && e.At.After(arrived) {
			continue
		}
		if end := e.At.Add(window); end.After(now) && end.After(until) {
			until = end
		}
	}
	return until, !until.IsZero()
}

// recordsKept is how long eviction records are kept: for the repeat guard
// and for the improving plugins' cool-downs.
func (g *gate) recordsKept() time.Duration {
	return max(g.repeatWindow(), g.churn.longestCoolDown())
}

// maxClockSkew is how far ahead of ours an eviction record's time may be.
const maxClockSkew = time.Minute

// repeatWindow is repeatEvictionWindow, 0 (off) when unset.
func (g *gate) repeatWindow() time.Duration {
	if g.cfg.RepeatEvictionWindow == nil {
		return 0
	}
	return g.cfg.RepeatEvictionWindow.Duration
}
