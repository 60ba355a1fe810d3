{{/*
Monitoring: a PrometheusRule with the component's alerts and, for a chart
that ships dashboards/*.json, a ConfigMap holding them for Grafana's
dashboard sidecar. Both are off by default, like the ServiceMonitor. Every
alert has a runbook_url into docs/operations.md ("Alerts").
*/}}
{{- define "graft-component.prometheusRule" -}}
{{- $rule := .Values.metrics.prometheusRule }}
{{- if $rule.enabled }}
---
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: {{ include "graft-component.fullname" . }}
  namespace: {{ $rule.namespace | default .Release.Namespace }}
  labels:
    {{- include "graft-component.labels" . | nindent 4 }}
    {{- with $rule.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  {{- include "graft-component.ruleGroups" . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
The rule groups: the chart's own alerts ("<chart>.alerts") and those every
component has (leader, fence, client throttling).
*/}}
{{- define "graft-component.ruleGroups" -}}
groups:
  - name: {{ include "graft-component.fullname" . }}
    rules:
      {{- include (printf "%s.alerts" .Chart.Name) . | trim | nindent 6 }}
      {{- include "graft-component.commonAlerts" . | trim | nindent 6 }}
{{- end }}

{{/*
The label matchers that pick this release's series: by default the job
prometheus-operator gives the metrics Service's targets (its name).
*/}}
{{- define "graft-component.alertSelector" -}}
{{- .Values.metrics.prometheusRule.selector | default (printf "job=%q" (printf "%s-metrics" (include "graft-component.fullname" .))) }}
{{- end }}

{{/* The runbook of an alert: dict "root" . "alert" NAME. */}}
{{- define "graft-component.runbookURL" -}}
{{- printf "%s#%s" .root.Values.metrics.prometheusRule.runbookURL (lower .alert) }}
{{- end }}

{{- define "graft-component.commonAlerts" -}}
{{- $sel := include "graft-component.alertSelector" . }}
{{- $component := .Chart.Name }}
{{- if include "graft-component.leaderElect" . }}
{{- $lease := include "graft-component.leaseName" . }}
- alert: GraftNoLeader
  {{- $leader := printf "leader_election_master_status{name=%q, %s}" $lease $sel }}
  expr: {{ printf "(max by (namespace, job, name) (%s) < 1) or absent(%s)" $leader $leader | quote }}
  for: {{ .Values.metrics.prometheusRule.noLeaderFor }}
  labels:
    severity: critical
    component: {{ $component }}
  annotations:
    summary: {{ printf "No replica of %s holds its Lease %s." $component $lease | quote }}
    description: {{ printf "No %s replica has reported leading for %s: nothing it does happens (no replica runs, none is scraped, or none can renew the Lease)." $component .Values.metrics.prometheusRule.noLeaderFor | quote }}
    runbook_url: {{ include "graft-component.runbookURL" (dict "root" . "alert" "GraftNoLeader") }}
{{- end }}
- alert: GraftWritesFenced
  expr: sum by (namespace, job, reason) (rate(graft_fence_refused_writes_total{component={{ $component | quote }}, {{ $sel }}}[5m])) > 0
  for: 10m
  labels:
    severity: warning
    component: {{ $component }}
  annotations:
    summary: {{ printf "%s has had writes refused by its fence for 10 minutes." $component | quote }}
    description: {{ printf "A %s replica keeps trying to write without a fresh Lease (reason %s): its work is not done while the API server or its Lease renewals lag." $component `{{ $labels.reason }}` | quote }}
    runbook_url: {{ include "graft-component.runbookURL" (dict "root" . "alert" "GraftWritesFenced") }}
- alert: GraftClientThrottled
  expr: sum by (namespace, job, client) (rate(graft_client_throttled_requests_total{component={{ $component | quote }}, {{ $sel }}}[10m])) > 0.1
  for: 15m
  labels:
    severity: warning
    component: {{ $component }}
  annotations:
    summary: {{ printf "%s waits for its client-side rate limit." $component | quote }}
    description: {{ printf "Requests of the %s client of %s wait more than a second for clientConnection.qps/burst, %s per second over 10 minutes." `{{ $labels.client }}` $component `{{ $value | humanize }}` | quote }}
    runbook_url: {{ include "graft-component.runbookURL" (dict "root" . "alert" "GraftClientThrottled") }}
{{- end }}

{{- define "graft-component.dashboards" -}}
{{- $dashboard := dig "dashboard" dict .Values.metrics }}
{{- if dig "enabled" false $dashboard }}
{{- $files := .Files.Glob "dashboards/*.json" }}
{{- if not $files }}
{{- fail (printf "metrics.dashboard.enabled: chart %s has no dashboards" .Chart.Name) }}
{{- end }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "graft-component.fullname" . }}-dashboards
  namespace: {{ $dashboard.namespace | default .Release.Namespace }}
  labels:
    {{- include "graft-component.labels" . | nindent 4 }}
    {{- with $dashboard.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with $dashboard.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
data:
  {{- range $path, $_ := $files }}
  {{ base $path }}: |-
    {{- $.Files.Get $path | nindent 4 }}
  {{- end }}
{{- end }}
{{- end }}
