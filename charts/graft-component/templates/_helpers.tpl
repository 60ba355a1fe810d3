{{/*
Names and labels. Every template here is called with the component chart's
root context, so .Chart is the component chart (graft-scheduler, ...), whose
name is also the name of its binary.
*/}}

{{- define "graft-component.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "graft-component.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "graft-component.selectorLabels" -}}
app.kubernetes.io/name: {{ include "graft-component.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "graft-component.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "graft-component.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: {{ .Chart.Name }}
app.kubernetes.io/part-of: graft
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "graft-component.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "graft-component.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "graft-component.image" -}}
{{- $tag := .Values.image.tag | default .Chart.AppVersion | toString }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository $tag }}
{{- end }}
{{- end }}

{{/*
The component config file: .Values.config with the chart's apiVersion and
kind. The binary reads it strictly, so values may only hold fields of that kind.
*/}}
{{- define "graft-component.config" -}}
{{- $cfg := deepCopy (.Values.config | default dict) }}
{{- $_ := set $cfg "apiVersion" "config.graft.dev/v1alpha1" }}
{{- $_ := set $cfg "kind" (include (printf "%s.configKind" .Chart.Name) . | trim) }}
{{- /* Bind addresses are strings; "0" (disabled) would otherwise arrive as a number. */}}
{{- $server := deepCopy ($cfg.server | default dict) }}
{{- range $field := list "healthProbeBindAddress" "metricsBindAddress" }}
{{- if hasKey $server $field }}
{{- $_ := set $server $field (toString (get $server $field)) }}
{{- end }}
{{- end }}
{{- $_ := set $cfg "server" $server }}
{{- toYaml $cfg }}
{{- end }}

{{/*
Ports come from the component config's server section so that the probes,
the container ports and the Service always agree with what the binary serves.
*/}}
{{- define "graft-component.portOf" -}}
{{- $addr := .addr | toString }}
{{- $port := regexReplaceAll "^.*:" $addr "" }}
{{- if or (not (regexMatch "^[0-9]+$" $port)) (eq $port "0") (gt (atoi $port) 65535) }}
{{- fail (printf "config.server.%s %q: the chart needs host:port with a fixed port" .field $addr) }}
{{- end }}
{{- $port }}
{{- end }}

{{- define "graft-component.healthPort" -}}
{{- $server := .Values.config.server | default dict }}
{{- $addr := required "config.server.healthProbeBindAddress is required: the probes use it" $server.healthProbeBindAddress }}
{{- include "graft-component.portOf" (dict "addr" $addr "field" "healthProbeBindAddress") }}
{{- end }}

{{- define "graft-component.metricsEnabled" -}}
{{- $server := .Values.config.server | default dict }}
{{- $addr := $server.metricsBindAddress | default "" | toString }}
{{- if and $addr (ne $addr "0") }}true{{ end }}
{{- end }}

{{- define "graft-component.metricsPort" -}}
{{- include "graft-component.portOf" (dict "addr" .Values.config.server.metricsBindAddress "field" "metricsBindAddress") }}
{{- end }}

{{/* The container port name /metrics is served on: its own, or the health port's when shared. */}}
{{- define "graft-component.metricsPortName" -}}
{{- if eq (include "graft-component.metricsPort" .) (include "graft-component.healthPort" .) }}health{{ else }}metrics{{ end }}
{{- end }}

{{- define "graft-component.leaderElect" -}}
{{- $le := .Values.config.leaderElection | default dict }}
{{- if not (eq (toString $le.leaderElect) "false") }}true{{ end }}
{{- end }}

{{- define "graft-component.leaseName" -}}
{{- required "config.leaderElection.resourceName is required: the lease Role is scoped to it" .Values.config.leaderElection.resourceName }}
{{- end }}

{{- define "graft-component.leaseNamespace" -}}
{{- required "config.leaderElection.resourceNamespace is required: the lease Role is created there" .Values.config.leaderElection.resourceNamespace }}
{{- end }}

{{/*
The namespace the component reads region ConfigMaps from: the binary's
regionConfigNamespace, whose default is garden.
*/}}
{{- define "graft-component.regionConfigNamespace" -}}
{{- $cfg := .Values.config | default dict }}
{{- $cfg.regionConfigNamespace | default "garden" }}
{{- end }}
