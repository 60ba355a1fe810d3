package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
)

// kinds are the configuration files, in the order the reference lists them.
var kinds = []struct {
	daemon string
	object interface{ Default() }
}{
	{"graft-scheduler", &configv1alpha1.SchedulerConfiguration{}},
	{"graft-descheduler", &configv1alpha1.DeschedulerConfiguration{}},
	{"graft-capacity-annotator", &configv1alpha1.CapacityAnnotatorConfiguration{}},
}

func main() {
	out := filepath.Join("docs", "configuration.md")
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	doc, err := generate(filepath.Join("apis", "config", "v1alpha1"))
	if err == nil {
		err = os.WriteFile(out, doc, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "configref:", err)
		os.Exit(1)
	}
}

// generate writes the reference from the types' source in dir.
func generate(dir string) ([]byte, error) {
	comments, err := fieldComments(dir)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(header)
	for _, k := range kinds {
		t := reflect.TypeOf(k.object).Elem()
		k.object.Default()
		data, err := json.Marshal(k.object)
		if err != nil {
			return nil, err
		}
		var defaults map[string]any
		if err := json.Unmarshal(data, &defaults); err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "\n## %s (`%s`)\n\n", k.daemon, t.Name())
		fmt.Fprintf(&b, "`apiVersion: %s`, `kind: %s`.\n\n", configv1alpha1.SchemeGroupVersion, t.Name())
		b.WriteString("| field | default | description |\n|---|---|---|\n")
		for _, r := range rows(t, "", comments, defaults) {
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.path, r.def, r.doc)
		}
	}
	return b.Bytes(), nil
}

const header = `# Configuration reference

Each graft daemon reads one versioned configuration file (` + "`--config`" + `),
defaulted and validated at start: an invalid file stops the daemon with an
error naming the field. This reference is written by ` + "`go run ./hack/configref`" + `
from the types in ` + "`apis/config/v1alpha1`" + ` (a test fails when it is not
current). The default is what an empty file gets; "-" means none (the field is
off or empty). Fields of Kubernetes' component-base types are documented
there: clientConnection (kubeconfig, qps, burst, contentType), leaderElection
(leaderElect, leaseDuration, renewDeadline, retryPeriod, resourceLock,
resourceName, resourceNamespace) and logging (format, verbosity, vmodule).
`

type row struct{ path, def, doc string }

// rows lists the fields of struct type t under prefix: graft's own structs
// field by field, other types (component-base's) as one row.
func rows(t reflect.Type, prefix string, comments map[string]string, defaults map[string]any) []row {
	var out []row
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if strings.Contains(opts, "inline") {
			if f.Type.PkgPath() == t.PkgPath() {
				out = append(out, rows(f.Type, prefix, comments, defaults)...)
			}
			continue
		}
		if name == "" || name == "-" {
			continue
		}
		path := prefix + name
		inner := f.Type
		list := ""
		for inner.Kind() == reflect.Pointer || inner.Kind() == reflect.Slice || inner.Kind() == reflect.Map {
			if inner.Kind() != reflect.Pointer {
				list = "[]"
			}
			inner = inner.Elem()
		}
		own := inner.Kind() == reflect.Struct && inner.PkgPath() == t.PkgPath()
		def := defaultOf(defaults, path)
		if own && list == "" && def != "-" {
			def = "(below)"
		}
		out = append(out, row{path, def, comments[t.Name()+"."+f.Name]})
		if own {
			out = append(out, rows(inner, path+list+".", comments, defaults)...)
		}
	}
	return out
}

// defaultOf renders the defaulted value at a dotted path, "-" when none.
func defaultOf(defaults map[string]any, path string) string {
	var v any = defaults
	for _, part := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok || strings.HasSuffix(part, "[]") {
			return "-"
		}
		if v, ok = m[part]; !ok {
			return "-"
		}
	}
	if v == nil {
		return "-"
	}
	data, err := json.Marshal(v)
	if err != nil {
		return "-"
	}
	return "`" + string(data) + "`"
}

// fieldComments reads the documentation comment of every struct field in
// the package at dir, keyed "Type.Field", as one line without markers.
func fieldComments(dir string) (map[string]string, error) {
	fset := token.NewFileSet()
	out := map[string]string{}
	files, err := filepath.Glob(filepath.Join(dir, "types_*.go"))
	if err != nil {
		return nil, err
	}
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return false
			}
			for _, field := range st.Fields.List {
				var lines []string
				if field.Doc != nil {
					for _, line := range strings.Split(field.Doc.Text(), "\n") {
						if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "+") {
							lines = append(lines, line)
						}
					}
				}
				text := strings.ReplaceAll(strings.Join(lines, " "), "|", `\|`)
				for _, name := range field.Names {
					out[ts.Name.Name+"."+name.Name] = text
				}
			}
			return false
		})
	}
	return out, nil
}
