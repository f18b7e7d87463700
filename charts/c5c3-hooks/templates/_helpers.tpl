{{/* The objects' name: c5c3-hooks unless fullnameOverride says otherwise (one install per cluster: the CRDs and controllers are cluster-wide). */}}
{{- define "c5c3-hooks.fullname" -}}
{{- default "c5c3-hooks" .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The labels the manifests/ objects carry; the pods are selected by app.kubernetes.io/name alone. */}}
{{- define "c5c3-hooks.selectorLabels" -}}
app.kubernetes.io/name: c5c3-hooks
{{- end -}}

{{/* Helm's own labels, on metadata only (never on selectors or the pod template). */}}
{{- define "c5c3-hooks.helmLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}

{{- define "c5c3-hooks.labels" -}}
{{ include "c5c3-hooks.selectorLabels" . }}
app.kubernetes.io/part-of: c5c3-hooks
{{ include "c5c3-hooks.helmLabels" . }}
{{- end -}}

{{- define "c5c3-hooks.image" -}}
{{ .Values.image.repository }}:{{ default .Chart.AppVersion .Values.image.tag }}
{{- end -}}

{{/* http, or https with config.tlsSecretName. */}}
{{- define "c5c3-hooks.scheme" -}}
{{ if .Values.config.tlsSecretName }}https{{ else }}http{{ end }}
{{- end -}}
