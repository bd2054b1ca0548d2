import { Controller, Get } from '@nestjs/common';

/** `GET /health` — for docker-compose's healthcheck: the app is up and its migrations ran. */
@Controller('health')
export class HealthController {
  @Get()
  health() {
    return { status: 'ok' };
  }
}
