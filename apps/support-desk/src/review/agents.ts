import { Inject, Injectable } from '@nestjs/common';
import type { Reviewer } from 'nestjs-judgment';
import { SUPPORT_DESK_CONFIG, type SupportDeskConfig } from '../config/support-desk.config';

/** The header that names the agent making a request. A stand-in for real authentication (req.user). */
export const AGENT_HEADER = 'x-agent';
/** The cookie that names the agent in a browser (set by `GET /agent-login?agent=alice`), the same stand-in. */
export const AGENT_COOKIE = 'agent';

/** The support agents who read and resolve Reviews. */
@Injectable()
export class Agents {
  constructor(@Inject(SUPPORT_DESK_CONFIG) private readonly config: SupportDeskConfig) {}

  /** The reviewer a request speaks for: `{ type: 'agent', id }` from the x-agent header or agent cookie, or null. */
  fromRequest(request: { headers: Record<string, string | string[] | undefined> }): Reviewer | null {
    const header = request.headers[AGENT_HEADER];
    const id = (Array.isArray(header) ? header[0] : header)?.trim() || agentCookie(request.headers.cookie);
    return id ? { type: 'agent', id } : null;
  }

  /** Whether the reviewer is one of the configured agents (SUPPORT_DESK_AGENTS). */
  isAgent(reviewer: Reviewer | null): boolean {
    if (reviewer === null || !('type' in reviewer) || reviewer.type !== 'agent') return false;
    return this.config.agents.includes(String(reviewer.id));
  }

  /** Whether the reviewer is an agent who may adjudicate disagreeing votes (SUPPORT_DESK_LEADS). */
  isLead(reviewer: Reviewer | null): boolean {
    return this.isAgent(reviewer) && this.config.leads.includes(String((reviewer as { id: unknown }).id));
  }
}

function agentCookie(cookie: string | string[] | undefined): string | undefined {
  for (const part of (Array.isArray(cookie) ? cookie.join(';') : (cookie ?? '')).split(';')) {
    const [name, ...value] = part.split('=');
    if (name.trim() === AGENT_COOKIE) return decodeURIComponent(value.join('=').trim()) || undefined;
  }
  return undefined;
}
