package framework

import (
	"bytes"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
)

// Factory builds a plugin from its raw arguments (JSON, possibly empty). It
// decodes them strictly, defaults and validates them, and reports every
// invalid field under fldPath.
type Factory func(args []byte, fldPath *field.Path) (Plugin, field.ErrorList)

// NewFactory returns the Factory of a plugin whose arguments are an A: it
// decodes them strictly (DecodeArgs), defaults them with defaults, nil when
// A has no defaults, validates them with validate, and builds the plugin
// with newPlugin. Every plugin takes its arguments this way, in this order.
func NewFactory[A any, P Plugin](defaults func(*A), validate func(*A, *field.Path) field.ErrorList, newPlugin func(A) P) Factory {
	return func(raw []byte, fldPath *field.Path) (Plugin, field.ErrorList) {
		args := new(A)
		if errs := DecodeArgs(raw, args, fldPath); len(errs) > 0 {
			return nil, errs
		}
		if defaults != nil {
			defaults(args)
		}
		if errs := validate(args, fldPath); len(errs) > 0 {
			return nil, errs
		}
		return newPlugin(*args), nil
	}
}

// Registry maps plugin names to their factories.
type Registry map[string]Factory

// Register adds a plugin; registering a name twice is a programming error.
func (r Registry) Register(name string, f Factory) {
	if _, ok := r[name]; ok {
		panic(fmt.Sprintf("descheduler plugin %s registered twice", name))
	}
	r[name] = f
}

// Build returns the enabled plugins of the configuration, in its order, or
// every error found in their names and arguments.
func (r Registry) Build(plugins []configv1alpha1.DeschedulerPlugin) ([]Plugin, error) {
	var out []Plugin
	var errs field.ErrorList
	for i, p := range plugins {
		pPath := field.NewPath("plugins").Index(i)
		f, ok := r[p.Name]
		if !ok {
			errs = append(errs, field.NotSupported(pPath.Child("name"), p.Name, r.names()))
			continue
		}
		plugin, perrs := f(p.Args.Raw, pPath.Child("args"))
		errs = append(errs, perrs...)
		if len(perrs) == 0 && (p.Enabled == nil || *p.Enabled) {
			out = append(out, plugin)
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("invalid descheduler plugins: %w", errs.ToAggregate())
	}
	return out, nil
}

// Improving returns the names of the registered plugins that improve
// placements (ChurnLimited), for the commands that plan their moves. Each is
// built with its default arguments to tell.
func (r Registry) Improving() []string {
	var out []string
	for name, f := range r {
		if p, errs := f(nil, field.NewPath("args")); len(errs) == 0 {
			if _, ok := p.(ChurnLimited); ok {
				out = append(out, name)
			}
		}
	}
	return out
}

func (r Registry) names() []string {
	out := make([]string, 0, len(r))
	for n := range r {
		out = append(out, n)
	}
	return out
}

// DecodeArgs decodes a plugin's raw JSON arguments strictly into out: an
// unknown field is an error naming it. Empty arguments leave out unchanged.
func DecodeArgs(raw []byte, out any, fldPath *field.Path) field.ErrorList {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return field.ErrorList{field.Invalid(fldPath, string(raw), "cannot decode the plugin's arguments: "+err.Error())}
	}
	return nil
}
