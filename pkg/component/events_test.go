package component

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
)

func TestShutdownFlushesEvents(t *testing.T) {
	client := fake.NewClientset()
	r := NewEventRecorder(client, scheme.Scheme, "test-component", 4)
	const n = 50
	for i := range n {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm-" + string(rune('a'+i%26)) + string(rune('a'+i/26)), UID: "uid"}}
		r.Eventf(cm, corev1.EventTypeNormal, "Tested", "event %d", i)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r.Shutdown(ctx)
	list, err := client.CoreV1().Events("ns").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != n {
		t.Fatalf("got %d events after Shutdown, want %d", len(list.Items), n)
	}
	if e := list.Items[0]; e.Source.Component != "test-component" || e.Reason != "Tested" {
		t.Errorf("unexpected event %+v", e)
	}
}
