package cachetrim_test

import (
	"fmt"
	"os"
	"runtime"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/graft-dev/client-go/clientset/versioned/scheme"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/component/cachetrim"
)

// BenchmarkCachedShoot measures what an informer's store retains per shoot:
// a realistic shoot as the API server serves it (testdata/shoot.json, with
// the managed fields of five writers), decoded by the clientset's codec as
// an informer decodes it, stored with and without the transform. The
// bytes/shoot metric is the growth of the live heap per stored shoot after
// a collection; B/op also counts what decoding leaves as garbage.
//
//	go test ./pkg/component/cachetrim -run xxx -bench CachedShoot -benchmem -benchtime 20000x
func BenchmarkCachedShoot(b *testing.B) {
	data, err := os.ReadFile("testdata/shoot.json")
	if err != nil {
		b.Fatal(err)
	}
	decoder := scheme.Codecs.UniversalDeserializer()
	for _, bc := range []struct {
		name      string
		transform cache.TransformFunc
	}{
		{"served", nil},
		{"trimmed", cachetrim.Transform},
	} {
		b.Run(bc.name, func(b *testing.B) {
			store := cache.NewStore(cache.MetaNamespaceKeyFunc)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			for i := range b.N {
				obj, _, err := decoder.Decode(data, nil, nil)
				if err != nil {
					b.Fatal(err)
				}
				shoot := obj.(*v1alpha1.Shoot)
				shoot.Name = fmt.Sprintf("shoot-%07d", i)
				var stored any = shoot
				if bc.transform != nil {
					if stored, err = bc.transform(shoot); err != nil {
						b.Fatal(err)
					}
				}
				if err := store.Add(stored); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(b.N), "bytes/shoot")
			runtime.KeepAlive(store)
		})
	}
}
