# One image for both processes: `npm run api` or `npm run worker`.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts=false && npm i --no-save tsx@4.23.15
COPY . .
USER node
EXPOSE 3000
CMD ["npm", "run", "api"]
