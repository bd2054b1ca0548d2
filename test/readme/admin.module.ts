import { Module } from '@nestjs/common';
import { RouterModule } from '@nestjs/core';
import { JudgmentHttpModule, type JudgmentHttpRequest } from 'nestjs-judgment/http';

/** The user your authentication put on the request (e.g. Passport's `request.user`). */
type StaffUser = { type: 'staff'; id: string; roles: string[] };
const staff = (request: JudgmentHttpRequest) => request.user as StaffUser | undefined;

@Module({
  imports: [
    JudgmentHttpModule.forRoot({
      canView: (request) => staff(request)?.roles.includes('reviewer') ?? false,
      reviewerFrom: (request) => {
        const user = staff(request);
        return user ? { type: user.type, id: user.id } : null;
      },
    }),
    RouterModule.register([{ path: 'admin', module: JudgmentHttpModule }]), // → /admin/judgment/reviews
  ],
})
export class AdminModule {}
