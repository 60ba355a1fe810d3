package graftctl

import (
	"bytes"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func genericiooptionsForTest() genericiooptions.IOStreams {
	return genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}
}
