import { BadRequestException, Controller, Get, Query, Res } from '@nestjs/common';
import { AGENT_COOKIE } from './agents';

/** The parts of Express's response the login uses (the demo runs on @nestjs/platform-express). */
interface CookieResponse {
  cookie(name: string, value: string, options: { httpOnly: boolean; sameSite: 'strict'; path: string }): void;
  redirect(status: number, url: string): void;
}

/**
 * `GET /agent-login?agent=alice`: names the agent of this browser in a cookie and opens the review page. The demo's
 * stand-in for a login (like the x-agent header); whether the agent may read or resolve is still the app's guards'.
 */
@Controller('agent-login')
export class AgentLoginController {
  @Get()
  login(@Query('agent') agent: string | undefined, @Res() response: CookieResponse): void {
    if (typeof agent !== 'string' || !/^[a-z0-9_-]{1,64}$/i.test(agent)) {
      throw new BadRequestException('Name the agent: /agent-login?agent=alice (letters, digits, - and _).');
    }
    response.cookie(AGENT_COOKIE, agent, { httpOnly: true, sameSite: 'strict', path: '/' });
    response.redirect(303, '/judgment/desk');
  }
}
