{{/*
graft-component.all renders every object of a component chart. A component
chart's templates/ holds one file that includes it.
*/}}
{{- define "graft-component.all" -}}
{{- if and (gt (int .Values.replicaCount) 1) (not (include "graft-component.leaderElect" .)) }}
{{- fail "replicaCount above 1 needs config.leaderElection.leaderElect: replicas would work against each other" }}
{{- end }}
{{- /* Each part starts with its own "---"; the newlines keep them apart. */}}
{{ include "graft-component.serviceAccount" . }}
{{ include "graft-component.configMap" . }}
{{ include "graft-component.rbac" . }}
{{ include "graft-component.deployment" . }}
{{ include "graft-component.service" . }}
{{ include "graft-component.serviceMonitor" . }}
{{ include "graft-component.prometheusRule" . }}
{{ include "graft-component.dashboards" . }}
{{ include "graft-component.podDisruptionBudget" . }}
{{- end }}

{{- define "graft-component.serviceAccount" -}}
{{- if .Values.serviceAccount.create }}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "graft-component.serviceAccountName" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "graft-component.labels" . | nindent 4 }}
  {{- with .Values.serviceAccount.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
automountServiceAccountToken: false
{{- end }}
{{- end }}

{{- define "graft-component.configMap" -}}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "graft-component.fullname" . }}-config
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "graft-component.labels" . | nindent 4 }}
data:
  config.yaml: |
    {{- include "graft-component.config" . | nindent 4 }}
{{- end }}

{{/*
RBAC: a ClusterRole with the component's own rules (from "<chart>.rules"),
a Role that lets it hold exactly its leader election Lease, and, for a
component with "<chart>.regionConfigRules", a Role with those rules in the
namespace it reads region ConfigMaps from (config.regionConfigNamespace).
*/}}
{{- define "graft-component.rbac" -}}
{{- if .Values.rbac.create }}
{{- $fullname := include "graft-component.fullname" . }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ $fullname }}
  labels:
    {{- include "graft-component.labels" . | nindent 4 }}
rules:
  {{- include (printf "%s.rules" .Chart.Name) . | nindent 2 }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: {{ $fullname }}
  labels:
    {{- include "graft-component.labels" . | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: {{ $fullname }}
subjects:
  - kind: ServiceAccount
    name: {{ include "graft-component.serviceAccountName" . }}
    namespace: {{ .Release.Namespace }}
{{- if include "graft-component.leaderElect" . }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ $fullname }}-leader-election
  namespace: {{ include "graft-component.leaseNamespace" . }}
  labels:
    {{- include "graft-component.labels" . | nindent 4 }}
rules:
  # Creating cannot be limited to a name; reading and renewing can.
  - apiGroups: ["coordination.k8s.io"]
    resources: ["leases"]
    verbs: ["create"]
  - apiGroups: ["coordination.k8s.io"]
    resources: ["leases"]
    resourceNames: [{{ include "graft-component.leaseName" . | quote }}]
    verbs: ["get", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ $fullname }}-leader-election
  namespace: {{ include "graft-component.leaseNamespace" . }}
  labels:
    {{- include "graft-component.labels" . | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {{ $fullname }}-leader-election
subjects:
  - kind: ServiceAccount
    name: {{ include "graft-component.serviceAccountName" . }}
    namespace: {{ .Release.Namespace }}
{{- end }}
{{- $regionConfigRules := include (printf "%s.regionConfigRules" .Chart.Name) . | trim }}
{{- if $regionConfigRules }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ $fullname }}-region-config
  namespace: {{ include "graft-component.regionConfigNamespace" . }}
  labels:
    {{- include "graft-component.labels" . | nindent 4 }}
rules:
  {{- $regionConfigRules | nindent 2 }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ $fullname }}-region-config
  namespace: {{ include "graft-component.regionConfigNamespace" . }}
  labels:
    {{- include "graft-component.labels" . | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {{ $fullname }}-region-config
subjects:
  - kind: ServiceAccount
    name: {{ include "graft-component.serviceAccountName" . }}
    namespace: {{ .Release.Namespace }}
{{- end }}
{{- end }}
{{- end }}

{{- define "graft-component.deployment" -}}
{{- $healthPort := include "graft-component.healthPort" . }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "graft-component.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "graft-component.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicaCount }}
  revisionHistoryLimit: {{ .Values.revisionHistoryLimit }}
  selector:
    matchLabels:
      {{- include "graft-component.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "graft-component.selectorLabels" . | nindent 8 }}
        {{- with .Values.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        # A changed config rolls the pods; the binary reads it only at start.
        checksum/config: {{ include "graft-component.config" . | sha256sum }}
        {{- with .Values.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "graft-component.serviceAccountName" . }}
      automountServiceAccountToken: true
      {{- with .Values.priorityClassName }}
      priorityClassName: {{ . }}
      {{- end }}
      {{- with .Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        {{- toYaml .Values.podSecurityContext | nindent 8 }}
      containers:
        - name: {{ .Chart.Name }}
          image: {{ include "graft-component.image" . | quote }}
          imagePullPolicy: {{ .Values.image.pullPolicy }}
          command: ["/usr/local/bin/{{ .Chart.Name }}"]
          args:
            - --config=/etc/graft/config.yaml
            {{- range .Values.extraArgs }}
            - {{ . | quote }}
            {{- end }}
          {{- with .Values.env }}
          env:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          ports:
            - name: health
              containerPort: {{ $healthPort }}
              protocol: TCP
            {{- if and (include "graft-component.metricsEnabled" .) (eq (include "graft-component.metricsPortName" .) "metrics") }}
            - name: metrics
              containerPort: {{ include "graft-component.metricsPort" . }}
              protocol: TCP
            {{- end }}
          livenessProbe:
            httpGet:
              path: /healthz
              port: health
            {{- toYaml .Values.livenessProbe | nindent 12 }}
          readinessProbe:
            httpGet:
              path: /readyz
              port: health
            {{- toYaml .Values.readinessProbe | nindent 12 }}
          resources:
            {{- toYaml .Values.resources | nindent 12 }}
          securityContext:
            {{- toYaml .Values.containerSecurityContext | nindent 12 }}
          volumeMounts:
            - name: config
              mountPath: /etc/graft
              readOnly: true
            - name: tmp
              mountPath: /tmp
            {{- with .Values.extraVolumeMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
      volumes:
        - name: config
          configMap:
            name: {{ include "graft-component.fullname" . }}-config
        # The root filesystem is read-only; anything that insists on a
        # scratch directory gets this one.
        - name: tmp
          emptyDir:
            sizeLimit: 64Mi
        {{- with .Values.extraVolumes }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- with .Values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- if .Values.affinity }}
      affinity:
        {{- toYaml .Values.affinity | nindent 8 }}
      {{- else }}
      # Spread the replicas over nodes so that one node going away does not
      # take the leader and its standby together.
      affinity:
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
            - weight: 100
              podAffinityTerm:
                topologyKey: kubernetes.io/hostname
                labelSelector:
                  matchLabels:
                    {{- include "graft-component.selectorLabels" . | nindent 20 }}
      {{- end }}
      {{- with .Values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.topologySpreadConstraints }}
      topologySpreadConstraints:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end }}

{{- define "graft-component.service" -}}
{{- if and .Values.metrics.service.enabled (include "graft-component.metricsEnabled" .) }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ include "graft-component.fullname" . }}-metrics
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "graft-component.labels" . | nindent 4 }}
  {{- with .Values.metrics.service.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: ClusterIP
  selector:
    {{- include "graft-component.selectorLabels" . | nindent 4 }}
  ports:
    - name: metrics
      port: {{ .Values.metrics.service.port | default (include "graft-component.metricsPort" .) }}
      targetPort: {{ include "graft-component.metricsPortName" . }}
      protocol: TCP
    {{- if eq (include "graft-component.metricsPortName" .) "metrics" }}
    # /healthz and /readyz, for a look from inside the cluster (kubelet
    # probes the pods directly); on the metrics port already when shared.
    - name: health
      port: {{ include "graft-component.healthPort" . }}
      targetPort: health
      protocol: TCP
    {{- end }}
{{- end }}
{{- end }}

{{- define "graft-component.serviceMonitor" -}}
{{- if .Values.metrics.serviceMonitor.enabled }}
{{- if not (and .Values.metrics.service.enabled (include "graft-component.metricsEnabled" .)) }}
{{- fail "metrics.serviceMonitor.enabled needs metrics.service.enabled and config.server.metricsBindAddress" }}
{{- end }}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: {{ include "graft-component.fullname" . }}
  namespace: {{ .Values.metrics.serviceMonitor.namespace | default .Release.Namespace }}
  labels:
    {{- include "graft-component.labels" . | nindent 4 }}
    {{- with .Values.metrics.serviceMonitor.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  namespaceSelector:
    matchNames:
      - {{ .Release.Namespace }}
  selector:
    matchLabels:
      {{- include "graft-component.selectorLabels" . | nindent 6 }}
  endpoints:
    - port: metrics
      path: /metrics
      interval: {{ .Values.metrics.serviceMonitor.interval }}
      scrapeTimeout: {{ .Values.metrics.serviceMonitor.scrapeTimeout }}
{{- end }}
{{- end }}

{{/*
The PodDisruptionBudget lets a node drain evict one replica at a time:
maxUnavailable 1 holds with any replicaCount, so with two replicas the leader
and its standby are never evicted together, and a single replica can still
be evicted (minAvailable 1 would block every drain of its node).
minAvailable, when set, is used instead; the API takes only one of the two.
*/}}
{{- define "graft-component.podDisruptionBudget" -}}
{{- $pdb := .Values.podDisruptionBudget }}
{{- if $pdb.enabled }}
{{- $minAvailable := include "graft-component.pdbField" (dict "pdb" $pdb "field" "minAvailable") }}
{{- $maxUnavailable := include "graft-component.pdbField" (dict "pdb" $pdb "field" "maxUnavailable") | default "1" }}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "graft-component.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "graft-component.labels" . | nindent 4 }}
spec:
  {{- if $minAvailable }}
  minAvailable: {{ $minAvailable }}
  {{- else }}
  maxUnavailable: {{ $maxUnavailable }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "graft-component.selectorLabels" . | nindent 6 }}
{{- end }}
{{- end }}

{{/* A PDB field as a string; empty when unset or "" (0 is a value). */}}
{{- define "graft-component.pdbField" -}}
{{- $v := get .pdb .field }}
{{- if not (kindIs "invalid" $v) }}{{ toString $v }}{{ end }}
{{- end }}
