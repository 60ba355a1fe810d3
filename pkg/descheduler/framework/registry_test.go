package framework

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

type testArgs struct {
	Limit int `json:"limit"`
}

type testPlugin struct{ args testArgs }

func (testPlugin) Name() string               { return "Test" }
func (testPlugin) Evaluate(*SeedState) Result { return Result{} }

func validateTestArgs(args *testArgs, fldPath *field.Path) field.ErrorList {
	if args.Limit < 1 {
		return field.ErrorList{field.Invalid(fldPath.Child("limit"), args.Limit, "must be positive")}
	}
	return nil
}

func newTestPlugin(args testArgs) testPlugin { return testPlugin{args: args} }

// TestNewFactory: arguments are decoded strictly, then defaulted, then
// validated, and the plugin is built from the result.
func TestNewFactory(t *testing.T) {
	path := field.NewPath("args")
	defaulted := NewFactory(func(a *testArgs) {
		if a.Limit == 0 {
			a.Limit = 3
		}
	}, validateTestArgs, newTestPlugin)
	if p, errs := defaulted(nil, path); len(errs) != 0 || p.(testPlugin).args.Limit != 3 {
		t.Errorf("empty arguments gave %+v, %v; want the default limit 3, validated after defaulting", p, errs)
	}
	if p, errs := defaulted([]byte(`{"limit":7}`), path); len(errs) != 0 || p.(testPlugin).args.Limit != 7 {
		t.Errorf("limit 7 gave %+v, %v", p, errs)
	}
	if _, errs := defaulted([]byte(`{"limit":-1}`), path); len(errs) != 1 || errs[0].Field != "args.limit" {
		t.Errorf("a negative limit gave %v, want one error at args.limit", errs)
	}
	if _, errs := defaulted([]byte(`{"limt":1}`), path); len(errs) != 1 || !strings.Contains(errs[0].Error(), "limt") {
		t.Errorf("an unknown field gave %v, want an error naming it", errs)
	}
	undefaulted := NewFactory(nil, validateTestArgs, newTestPlugin)
	if _, errs := undefaulted(nil, path); len(errs) != 1 {
		t.Errorf("without defaults, empty arguments gave %v, want the validation error", errs)
	}
}
