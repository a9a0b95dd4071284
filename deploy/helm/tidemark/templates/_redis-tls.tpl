{{/*
  TLS to an external Redis (redis.tls): the CA from a Secret, optionally a client certificate from a
  kubernetes.io/tls Secret, mounted read-only into every pod that talks to Redis and named to the
  apps by TIDEMARK_REDIS_TLS_* (the reconciler and the dashboard read the same variables).
*/}}

{{/* tidemark.redisTlsValid fails the render on TLS that could not work: the bundled Redis is plain, and TLS needs rediss://. */}}
{{- define "tidemark.redisTlsValid" -}}
{{- $tls := .Values.redis.tls -}}
{{- if $tls.enabled -}}
{{- $mode := include "tidemark.redisMode" . | trim -}}
{{- if eq $mode "bundled" }}{{ fail "redis.tls.enabled: the bundled Redis serves plain TCP inside the cluster; TLS is for your own Redis (redis.enabled=false with redis.externalUrl, redis.sentinel or redis.cluster)" }}{{ end -}}
{{- if and (eq $mode "url") (not (hasPrefix "rediss://" (lower .Values.redis.externalUrl))) }}{{ fail "redis.tls.enabled: redis.externalUrl must start with rediss:// to speak TLS" }}{{ end -}}
{{- if and $tls.caSecret (not $tls.caKey) }}{{ fail "redis.tls.caKey: name the key of redis.tls.caSecret that holds the CA (ca.crt)" }}{{ end -}}
{{- else if or $tls.caSecret $tls.clientCertSecret $tls.serverName -}}
{{- fail "redis.tls: caSecret, clientCertSecret and serverName take effect only with redis.tls.enabled=true" -}}
{{- end -}}
{{- end -}}

{{/* tidemark.redisTlsEnv: where the apps find the CA and the client certificate, and the name to verify. */}}
{{- define "tidemark.redisTlsEnv" -}}
{{- include "tidemark.redisTlsValid" . -}}
{{- $tls := .Values.redis.tls -}}
{{- if $tls.enabled }}
{{- if $tls.caSecret }}
- name: TIDEMARK_REDIS_TLS_CA_FILE
  value: /etc/tidemark/redis-tls/ca/{{ $tls.caKey }}
{{- end }}
{{- if $tls.clientCertSecret }}
- name: TIDEMARK_REDIS_TLS_CERT_FILE
  value: /etc/tidemark/redis-tls/client/tls.crt
- name: TIDEMARK_REDIS_TLS_KEY_FILE
  value: /etc/tidemark/redis-tls/client/tls.key
{{- end }}
{{- if $tls.serverName }}
- name: TIDEMARK_REDIS_TLS_SERVER_NAME
  value: {{ $tls.serverName | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{/* tidemark.redisTlsMounts are the container's read-only mounts of the TLS Secrets. */}}
{{- define "tidemark.redisTlsMounts" -}}
{{- $tls := .Values.redis.tls -}}
{{- if $tls.enabled }}
{{- if $tls.caSecret }}
- name: redis-tls-ca
  mountPath: /etc/tidemark/redis-tls/ca
  readOnly: true
{{- end }}
{{- if $tls.clientCertSecret }}
- name: redis-tls-client
  mountPath: /etc/tidemark/redis-tls/client
  readOnly: true
{{- end }}
{{- end }}
{{- end -}}

{{/* tidemark.redisTlsVolumes are the pod's volumes of the TLS Secrets, each with only the keys used. */}}
{{- define "tidemark.redisTlsVolumes" -}}
{{- $tls := .Values.redis.tls -}}
{{- if $tls.enabled }}
{{- if $tls.caSecret }}
- name: redis-tls-ca
  secret:
    secretName: {{ $tls.caSecret }}
    items:
      - key: {{ $tls.caKey }}
        path: {{ $tls.caKey }}
{{- end }}
{{- if $tls.clientCertSecret }}
- name: redis-tls-client
  secret:
    secretName: {{ $tls.clientCertSecret }}
    items:
      - key: tls.crt
        path: tls.crt
      - key: tls.key
        path: tls.key
{{- end }}
{{- end }}
{{- end -}}
