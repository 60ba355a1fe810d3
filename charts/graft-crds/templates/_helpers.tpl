{{- define "graft-crds.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/part-of: graft
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
A policy from policies/, shipped as it is there (test/framework installs the
same file) with the chart's labels added.
*/}}
{{- define "graft-crds.policy" -}}
{{- $root := index . 0 }}
{{- $policy := $root.Files.Get (index . 1) | fromYaml }}
{{- if hasKey $policy "Error" }}
{{- fail (printf "%s: %s" (index . 1) $policy.Error) }}
{{- end }}
{{- $_ := set $policy.metadata "labels" (merge (include "graft-crds.labels" $root | fromYaml) ($policy.metadata.labels | default dict)) }}
{{- toYaml $policy }}
{{- end }}
