import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JudgmentModule } from 'nestjs-judgment';
import { RefundAbuse } from './refund-abuse.judgment';
import { RefundActions } from './refund-actions.listener';
import { Refund } from './refund.entity';
import { RefundsController } from './refunds.controller';
import { RefundsService } from './refunds.service';

/** Refund requests: the RefundAbuse Judgment, its Decision, the HTTP API and the Actions. */
@Module({
  imports: [TypeOrmModule.forFeature([Refund]), JudgmentModule.forFeature([RefundAbuse])],
  controllers: [RefundsController],
  providers: [RefundsService, RefundActions],
  exports: [RefundsService],
})
export class RefundsModule {}
