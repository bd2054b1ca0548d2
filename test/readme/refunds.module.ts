import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JudgmentModule } from 'nestjs-judgment';
import { RefundAbuse } from './refund-abuse.judgment';
import { RefundActions } from './refund-actions.listener';
import { RefundRequests } from './refund-requests.service';
import { Refund } from './refund.entity';

@Module({
  imports: [TypeOrmModule.forFeature([Refund]), JudgmentModule.forFeature([RefundAbuse])],
  providers: [RefundRequests, RefundActions],
  exports: [RefundRequests],
})
export class RefundsModule {}
