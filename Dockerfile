# One image for every service; the command picks the service (pnpm start:<name>, pnpm migrate).
FROM node:20-bookworm-slim
WORKDIR /app
RUN npm install -g pnpm@10.34.9
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml tsconfig.base.json tsconfig.json ./
COPY packages ./packages
COPY services ./services
COPY scripts ./scripts
RUN pnpm install --frozen-lockfile && chown -R node:node /app
ENV HOST=0.0.0.0
USER node
EXPOSE 8081 8082 8083 8084
CMD ["pnpm", "start:auth"]
