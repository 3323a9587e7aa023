# mfa-sim in a container: the package built from this repository, installed into a small Node 20 image, run as a
# non-root user, listening on 0.0.0.0:8080. Reachable beyond loopback, its control API needs a token: give one in
# MFA_SIM_CONTROL_TOKEN (else it makes one and prints it). Every flag has its MFA_SIM_* variable (docs/command-line.md).
#
#   docker build -t mfa-sim .
#   docker run --rm -p 8080:8080 -e MFA_SIM_SECRET=test-secret -e MFA_SIM_CONTROL_TOKEN=ctl mfa-sim

FROM node:20-alpine AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build && npm pack --ignore-scripts --pack-destination /out

FROM node:20-alpine
ENV NODE_ENV=production \
    MFA_SIM_HOST=0.0.0.0 \
    MFA_SIM_PORT=8080
COPY --from=build /out/ /tmp/pack/
RUN npm install --global --omit=dev --ignore-scripts --no-audit --no-fund /tmp/pack/mfa-sim-*.tgz \
 && rm -rf /tmp/pack /root/.npm
USER node
WORKDIR /home/node
EXPOSE 8080
# The health route answers a Host that is an IP address, and needs no control token.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD wget -q -O /dev/null http://127.0.0.1:8080/__sim/health || exit 1
ENTRYPOINT ["mfa-sim"]
