# One image for the Node services of docker-compose.yml: the support desk's HTTP API (`app`), its queue worker
# (`worker`) and the Jev simulator (`jev-simulator`). They run the TypeScript sources through scripts/register.js
# (SWC), so the image needs the dev dependencies: `npm ci` installs exactly package-lock.json.
FROM node:20

WORKDIR /app

# npm 11, as on the development machines: it honours package.json `allowScripts` (which install scripts may run).
RUN npm install -g npm@11 --no-audit --no-fund

COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

COPY tsconfig.json .swcrc nest-cli.json ./
COPY scripts ./scripts
COPY libs ./libs
COPY apps ./apps

EXPOSE 3000
CMD ["node", "-r", "./scripts/register.js", "apps/support-desk/src/main.ts"]
