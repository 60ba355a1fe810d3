package component

import (
	"fmt"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation/field"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
)

var (
	configScheme = runtime.NewScheme()
	configCodecs = serializer.NewCodecFactory(configScheme, serializer.EnableStrict)
)

func init() {
	if err := configv1alpha1.AddToScheme(configScheme); err != nil {
		panic(fmt.Sprintf("registering config.graft.dev/v1alpha1: %v", err))
	}
}

// LoadConfig reads the file at path into a new T, defaults it and validates it. The
// file must name T's apiVersion and kind. T is a pointer kind of
// config.graft.dev/v1alpha1, e.g. LoadConfig[*v1alpha1.SchedulerConfiguration].
func LoadConfig[T configv1alpha1.Configuration](path string) (T, error) {
	var zero T
	data, err := os.ReadFile(path)
	if err != nil {
		return zero, fmt.Errorf("reading component config: %w", err)
	}
	cfg, err := DecodeConfig[T](data)
	if err != nil {
		return zero, fmt.Errorf("component config %s: %w", path, err)
	}
	return cfg, nil
}

// DecodeConfig is LoadConfig for data already in memory.
func DecodeConfig[T configv1alpha1.Configuration](data []byte) (T, error) {
	var zero T
	obj, gvk, err := configCodecs.UniversalDeserializer().Decode(data, nil, nil)
	if err != nil {
		return zero, fmt.Errorf("decoding: %w", err)
	}
	cfg, ok := obj.(T)
	if !ok {
		want, _, _ := configScheme.ObjectKinds(zero)
		return zero, fmt.Errorf("file is a %s, want %v", gvk, want)
	}
	cfg.Default()
	if errs := cfg.Validate(); len(errs) > 0 {
		return zero, &InvalidConfigError{Kind: gvk.Kind, Errors: errs}
	}
	return cfg, nil
}

// InvalidConfigError lists every invalid field of a configuration, one per line.
type InvalidConfigError struct {
	// Kind is the configuration's kind.
	Kind string
	// Errors are the invalid fields.
	Errors field.ErrorList
}

func (e *InvalidConfigError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "invalid %s (%d field(s)):", e.Kind, len(e.Errors))
	for _, err := range e.Errors {
		b.WriteString("\n  ")
		b.WriteString(err.Error())
	}
	return b.String()
}
